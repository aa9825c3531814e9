// A darkroad bot on the Go client openapi-generator makes from openapi/openapi.json (see
// README.md).
//
// It creates a game, plays every seat with random legal actions (a goroutine per seat, each
// with its own seat token, as separate players would), follows the game with the event log's
// long poll to know when to act, and prints the final score.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	mathrand "math/rand"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	darkroad "github.com/darkroad/darkroad-go"
)

// problem says what an error answer was: the problem details' type and detail when the server
// sent them (every 4xx/5xx is an RFC 9457 problem), else the error itself.
func problem(err error) string {
	var openAPIError *darkroad.GenericOpenAPIError
	if errors.As(err, &openAPIError) {
		if details, ok := openAPIError.Model().(darkroad.ProblemDetails); ok {
			return fmt.Sprintf("%d %s: %s", details.GetStatus(), details.GetType(), details.GetDetail())
		}
		return fmt.Sprintf("%s: %s", err, openAPIError.Body())
	}
	return err.Error()
}

func newKey() string {
	key := make([]byte, 16)
	if _, err := rand.Read(key); err != nil {
		panic(err)
	}
	return hex.EncodeToString(key)
}

// act submits one random legal action of the seat in ctx from listed. Retries reuse the
// Idempotency-Key: a 503 may come after the action was committed, and the same key makes the
// server answer it instead of acting twice. A 409 means someone acted first: the caller lists
// the actions again. It says whether the action was taken.
func act(ctx context.Context, api *darkroad.APIClient, game string, listed *darkroad.ActionList, rng *mathrand.Rand) (bool, error) {
	action := listed.Actions[rng.Intn(len(listed.Actions))]
	key := newKey()
	for attempt := 1; attempt <= 5; attempt++ {
		_, response, err := api.GamesAPI.SubmitAction(ctx, game).Action(action).
			IfMatch(fmt.Sprintf("%q", strconv.Itoa(int(listed.Version)))).IdempotencyKey(key).Execute()
		switch {
		case err == nil:
			return true, nil
		case response != nil && response.StatusCode == http.StatusConflict:
			return false, nil
		case response != nil && response.StatusCode == http.StatusServiceUnavailable:
			time.Sleep(time.Duration(attempt) * time.Second)
		default:
			return false, fmt.Errorf("submit action: %s", problem(err))
		}
	}
	return false, errors.New("submit action: the server stayed unavailable")
}

// play is one seat's player: it acts whenever the game waits for it, and in between follows
// the game's events with the long poll (GET .../log?after=N&wait=S answers as soon as an event
// the seat may see comes, or after S seconds with none), until the game is over. The long poll
// is the generated client's way to follow a game; the server-sent events of GET .../stream
// are for clients with an event-stream reader. It returns the number of actions it took.
func play(me context.Context, api *darkroad.APIClient, game string, rng *mathrand.Rand) (int, error) {
	actions, after := 0, int32(-1)
	for {
		listed, _, err := api.GamesAPI.ListActions(me, game).Execute()
		if err != nil {
			return actions, fmt.Errorf("list actions: %s", problem(err))
		}
		if listed.Status == "finished" {
			return actions, nil
		}
		if len(listed.Actions) > 0 {
			taken, err := act(me, api, game, listed, rng)
			if err != nil {
				return actions, err
			}
			if taken {
				actions++
			}
			continue
		}
		page, _, err := api.GamesAPI.GetLog(me, game).After(after).Wait(25).Execute()
		if err != nil {
			return actions, fmt.Errorf("follow the log: %s", problem(err))
		}
		after = page.Next
	}
}

func run() error {
	url := flag.String("url", "http://127.0.0.1:8000", "the darkroad server")
	players := flag.Int("players", 2, "seats (1: solo against the Private Concern)")
	seed := flag.Int64("seed", 1, "the game's seed (and the bot's)")
	flag.Parse()

	config := darkroad.NewConfiguration()
	config.Servers = darkroad.ServerConfigurations{{URL: *url}}
	api := darkroad.NewAPIClient(config)
	anyone := context.Background() // reads without a token: the spectator's view

	newGame := darkroad.NewNewGame(int32(*players))
	newGame.SetSeed(int32(*seed))
	created, _, err := api.GamesAPI.CreateGame(anyone).NewGame(*newGame).Execute()
	if err != nil {
		return fmt.Errorf("create: %s", problem(err))
	}
	fmt.Printf("game %s: %d seats\n", created.Id, len(created.Seats))

	// One player per seat the creator holds a token for, each in a goroutine of its own.
	var (
		wait     sync.WaitGroup
		mutex    sync.Mutex
		actions  int
		failures []error
	)
	for _, seat := range created.Seats {
		token, ok := seat.GetTokenOk()
		if !ok || token == nil {
			continue // an automated seat (the Private Concern) plays itself
		}
		me := context.WithValue(anyone, darkroad.ContextAccessToken, *token)
		rng := mathrand.New(mathrand.NewSource(*seed + int64(seat.Seat)))
		wait.Add(1)
		go func() {
			defer wait.Done()
			taken, err := play(me, api, created.Id, rng)
			mutex.Lock()
			defer mutex.Unlock()
			actions += taken
			if err != nil {
				failures = append(failures, err)
			}
		}()
	}
	wait.Wait()
	if len(failures) > 0 {
		return failures[0]
	}

	final, _, err := api.GamesAPI.GetScore(anyone, created.Id).Execute()
	if err != nil {
		return fmt.Errorf("score: %s", problem(err))
	}
	fmt.Printf("%d actions\n", actions)
	for _, line := range final.Score {
		fmt.Printf("seat %d: %d points (coins %d, prestige %d)\n", line.Seat, line.Total, line.Coins, line.Prestige)
	}
	fmt.Print("winners:")
	for _, seat := range final.Winners {
		fmt.Printf(" seat %d", seat)
	}
	fmt.Println()
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
