// A darkroad bot on the Go client openapi-generator makes from openapi/openapi.json (see
// README.md).
//
// It creates a game, plays every seat with random legal actions (one context per seat, each
// carrying its own seat token, as separate players would), and prints the final score.
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

// act submits one random legal action of the seat in ctx. Retries reuse the Idempotency-Key:
// a 503 may come after the action was committed, and the same key makes the server answer it
// instead of acting twice. A 409 means someone acted first: the caller reads the game again.
func act(ctx context.Context, api *darkroad.APIClient, game string, rng *mathrand.Rand) error {
	listed, _, err := api.GamesAPI.ListActions(ctx, game).Execute()
	if err != nil {
		return fmt.Errorf("list actions: %s", problem(err))
	}
	if len(listed.Actions) == 0 {
		return nil
	}
	action := listed.Actions[rng.Intn(len(listed.Actions))]
	key := newKey()
	for attempt := 1; attempt <= 5; attempt++ {
		_, response, err := api.GamesAPI.SubmitAction(ctx, game).Action(action).
			IfMatch(fmt.Sprintf("%q", strconv.Itoa(int(listed.Version)))).IdempotencyKey(key).Execute()
		switch {
		case err == nil:
			return nil
		case response != nil && response.StatusCode == http.StatusConflict:
			return nil
		case response != nil && response.StatusCode == http.StatusServiceUnavailable:
			time.Sleep(time.Duration(attempt) * time.Second)
		default:
			return fmt.Errorf("submit action: %s", problem(err))
		}
	}
	return errors.New("submit action: the server stayed unavailable")
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
	seats := map[int32]context.Context{}
	for _, seat := range created.Seats {
		if token, ok := seat.GetTokenOk(); ok && token != nil {
			seats[seat.Seat] = context.WithValue(anyone, darkroad.ContextAccessToken, *token)
		}
	}
	fmt.Printf("game %s: %d seats\n", created.Id, len(created.Seats))

	rng := mathrand.New(mathrand.NewSource(*seed))
	actions := 0
	for {
		view, _, err := api.GamesAPI.GetGame(anyone, created.Id).Execute()
		if err != nil {
			return fmt.Errorf("view: %s", problem(err))
		}
		if view.Status == "finished" {
			break
		}
		seat := view.Awaiting[rng.Intn(len(view.Awaiting))]
		if err := act(seats[seat], api, created.Id, rng); err != nil {
			return err
		}
		actions++
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
