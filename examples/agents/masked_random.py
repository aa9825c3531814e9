"""A masked random agent on darkroad's PettingZoo environment: every seat picks one of its legal
actions at random (the ``action_mask`` of its observation), until the game ends.

    pip install -e ".[rl]"
    python examples/agents/masked_random.py --players 3 --seed 7
"""

from __future__ import annotations

import argparse

import numpy as np

import darkroad.env


def play(players: int, seed: int, render: bool = False) -> dict[str, float]:
    """One game of masked random agents; each agent's total reward."""
    env = darkroad.env.env(players=players, seed=seed, render_mode="ansi" if render else None)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None  # the game is over for this agent
        else:
            legal = np.flatnonzero(observation["action_mask"])
            action = int(rng.choice(legal))
        env.step(action)
    if render:
        print(env.unwrapped.match.render_text())
    env.close()
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description="masked random agents playing darkroad")
    parser.add_argument("--players", type=int, default=2, help="1 (solo against the Private Concern) to 4")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    totals = play(args.players, args.seed, render=True)
    print("rewards:", {agent: round(r, 3) for agent, r in totals.items()})


if __name__ == "__main__":
    main()
