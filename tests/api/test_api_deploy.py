"""deploy/: the compose file's three profiles hang together (Docker does not run in CI).

What can be checked without containers is: every service of a profile, what it mounts,
what it waits for and the addresses its API is given exist in the same profile; the API
settings parse; nginx reaches whichever API runs; the cluster set-up script is valid shell.
The configuration files themselves run for real: the tests' Redis Cluster and Sentinels
are started from ``redis-cluster.conf`` and ``sentinel.conf`` (``redisnodes.py``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from darkroad.api.redis_store import split_url
from darkroad.api.settings import Settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PROFILES = {
    "standalone": {"redis", "api"},
    "cluster": {*(f"redis-node-{n}" for n in range(1, 7)), "redis-cluster-init", "api-cluster"},
    "sentinel": {"redis-primary", "redis-replica", "sentinel-1", "sentinel-2", "sentinel-3", "api-sentinel"},
}
API = {"standalone": "api", "cluster": "api-cluster", "sentinel": "api-sentinel"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def services(compose: dict[str, Any], profile: str | None) -> dict[str, dict[str, Any]]:
    """The services a profile runs (``None``: the ones every profile runs)."""
    return {
        name: service
        for name, service in compose["services"].items()
        if (profile in service.get("profiles", [])) or ("profiles" not in service)
    }


def test_each_profile_runs_its_deployment_and_the_load_balancer(compose: dict[str, Any]) -> None:
    everywhere = set(services(compose, None))
    assert everywhere == {"lb"}
    for profile, names in PROFILES.items():
        assert set(services(compose, profile)) == names | {"lb"}, profile
    assert re.search(r"^COMPOSE_PROFILES=standalone$", (DEPLOY / ".env").read_text(encoding="utf-8"), re.M)


@pytest.mark.parametrize("profile", PROFILES)
def test_mounts_and_dependencies_exist(compose: dict[str, Any], profile: str) -> None:
    running = services(compose, profile)
    named_volumes = set(compose.get("volumes", {}))
    for name, service in running.items():
        for volume in service.get("volumes", []):
            source, target = volume.split(":")[:2]
            if source.startswith("./"):
                assert (DEPLOY / source).is_file(), f"{name} mounts a missing {source}"
                # The file mounted is the one its command names (nginx reads conf.d by itself).
                command = " ".join(service.get("command", []) + service.get("entrypoint", []))
                used = target in command or target.startswith("/etc/nginx/conf.d/")
                assert used, f"{name}: {target} is mounted but not used"
            else:
                assert source in named_volumes, f"{name}: undeclared volume {source}"
        for dependency in service.get("depends_on", {}):
            assert dependency in running, f"{name} waits for {dependency}, not in profile {profile}"
        if "build" in service:
            assert (DEPLOY / service["build"]["context"] / service["build"]["dockerfile"]).resolve().is_file()


@pytest.mark.parametrize("profile", PROFILES)
def test_the_api_reaches_redis_and_nginx_reaches_the_api(compose: dict[str, Any], profile: str) -> None:
    running = services(compose, profile)
    api = running[API[profile]]
    assert "api" in api["networks"]["default"]["aliases"]  # nginx.conf proxies to api:8000
    assert "http://api:8000" in (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert 'EXPOSE 8000' in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    settings = Settings.from_env(api["environment"])
    assert settings.redis_mode == {"standalone": "standalone"}.get(profile, profile)
    assert settings.redis_url is not None
    hosts, _ = split_url(settings.redis_url)
    for host, port in hosts:
        assert host in running, f"{API[profile]} is given {host}, not a service of profile {profile}"
        assert port == (26379 if profile == "sentinel" else 6379)
    if profile == "sentinel":
        monitor = re.search(r"^sentinel monitor (\S+) (\S+) (\d+) (\d+)$", conf("sentinel.conf"), re.M)
        assert monitor is not None
        assert monitor[1] == settings.redis_service
        assert monitor[2] in running and monitor[3] == "6379"
        assert "port 26379" in conf("sentinel.conf")


def test_cluster_nodes_announce_their_service_names(compose: dict[str, Any]) -> None:
    nodes = {name: service for name, service in services(compose, "cluster").items() if name.startswith("redis-node")}
    for name, service in nodes.items():
        command = service["command"]
        assert command[command.index("--cluster-announce-hostname") + 1] == name
    assert "cluster-enabled yes" in conf("redis-cluster.conf")
    assert "cluster-preferred-endpoint-type hostname" in conf("redis-cluster.conf")


def test_the_shell_commands_are_valid_shell(compose: dict[str, Any]) -> None:
    scripts = {
        name: service["command"][-1].replace("$$", "$")
        for name, service in compose["services"].items()
        if service.get("entrypoint") == ["sh", "-c"] or service.get("command", [None])[0] == "sh"
    }
    assert set(scripts) == {"redis-cluster-init", "redis-primary", "redis-replica", "sentinel-1", "sentinel-2",
                            "sentinel-3"}
    assert "--cluster-replicas 1" in scripts["redis-cluster-init"]
    assert "replicaof redis-primary 6379" in scripts["redis-replica"]
    for name, script in scripts.items():
        subprocess.run(["sh", "-n", "-c", script], check=True)
        if name != "redis-cluster-init":  # Redis drops root through the image's entrypoint
            assert "exec docker-entrypoint.sh redis-server /data/" in script, name


def conf(name: str) -> str:
    return (DEPLOY / name).read_text(encoding="utf-8")


def test_the_configuration_files_are_as_written() -> None:
    """Nothing rewrote them (a Redis started on one of them may: the tests run on copies)."""
    for name in ("redis.conf", "redis-cluster.conf", "sentinel.conf"):
        assert "CONFIG REWRITE" not in conf(name), name
