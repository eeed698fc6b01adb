"""`kenso-git connect --check CLIENT`: does the configured entry serve this repository?

The entry is read back from the client's file and started as the client would start it in
this repository: its command, args, cwd and env, `${workspaceFolder}` filled in where the
client fills it (Cursor, VS Code), with a minimal PATH (an editor launched from a desktop
menu has no virtualenv on PATH). It starts in the entry's `cwd`, else, for a user entry of a
client that starts servers in the project's folder (Claude Code, Codex, Gemini CLI), in the
repository, else from `/`. The repository it serves, read off its `--root` and folder (or,
when a wrapper command hides them, asked of the server), must be this one, and the server
must answer `initialize` and report a usable index through `health_check`.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenso_git.connect.clients import FOLDER_VARIABLE
from kenso_git.connect.clients import SERVER_NAME
from kenso_git.connect.clients import ClientSpec
from kenso_git.connect.clients import read_text
from kenso_git.connect.json_merge import load_json
from kenso_git.errors import UsageError

MINIMAL_PATH = "/usr/bin:/bin"
START_TIMEOUT_S = 30.0
FIX_THE_FILE = "fix the file, then run the check again"


@dataclass(frozen=True, slots=True)
class CheckResult:
    ok: bool
    message: str
    hint: str | None = None  # the command that makes it work


@dataclass(frozen=True, slots=True)
class Fix:
    """What makes the entry work: `command` (`connect CLIENT --write ...`), or, where
    `--write` leaves the file alone (`untouched` says why: comments, a number JSON cannot
    hold), the entry `connect` prints, pasted by hand."""

    command: str
    untouched: str = ""

    def hint(self, lead: str = "run") -> str:
        """`lead` and the command; or, where --write would not write, the same by hand."""
        if not self.untouched:
            return f"{lead} `{self.command}`"
        shown = self.command.replace(" --write", "", 1)
        action = "add the entry" if lead == "run" else lead.rstrip(": ").removesuffix(" with")
        return f"{action} by hand: paste what `{shown}` prints into the file ({self.untouched})"


@dataclass(frozen=True, slots=True)
class Launch:
    """The entry as its client starts it in one repository."""

    command: str
    args: tuple[str, ...]
    cwd: Path | None  # None: the client's own folder, not the project's (checked from /)
    env: dict[str, str]
    pinned: bool  # the entry names a folder itself (not as the client's ${workspaceFolder})


def check_client(
    client: str, repo: Path, home: Path, fix: str, *, user: bool
) -> tuple[Path, CheckResult]:
    """Check `client`'s entry in its project file (its user file with `user`) for the
    repository `repo`; `fix` is the command that writes the entry (`write_command`).
    Returns the file checked and the verdict.

    Raises:
        UsageError: unknown client, a project file reached through a link, no file, no
            entry, or a file that cannot be read.
    """
    from kenso_git.connect.clients import client_spec
    from kenso_git.connect.clients import config_path
    from kenso_git.connect.clients import refuse_links

    spec = client_spec(client)
    path = config_path(spec, repo, home, user=user)
    if not user:
        refuse_links(spec, repo)  # a planted link must not choose what --check starts
    remedy = Fix(fix, _untouched(client, repo, home, user=user))
    entry = configured_entry(spec, path, remedy)
    return path, check_entry(launch_in(spec, entry, repo, user=user), repo, remedy, user=user)


def _untouched(client: str, repo: Path, home: Path, *, user: bool) -> str:
    """Why `--write` would leave the file alone; "" when it would write it (or cannot read
    it: reading the entry says so)."""
    from kenso_git.connect.clients import plan

    try:
        return plan(client, repo, home, user=user).why_untouched
    except UsageError:
        return ""


def configured_entry(spec: ClientSpec, path: Path, fix: Fix) -> dict[str, Any]:
    """The kenso-git entry in the client's file; `fix` makes one, named in the hint.

    Raises:
        UsageError: no file, no entry, an entry without a command, or not JSON or TOML.
    """
    if not path.is_file():
        raise UsageError(
            f"no {spec.name} configuration file: it does not exist",
            path=str(path),
            hint=fix.hint(),
        )
    text = read_text(path)
    if spec.fmt == "toml":
        try:
            data: dict[str, Any] = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise UsageError(
                f"{path} is not valid TOML: {err}", path=str(path), hint=FIX_THE_FILE
            ) from err
    else:
        data = load_json(text, path, FIX_THE_FILE)[0]
    servers = data.get(spec.key)
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        raise UsageError(
            f"no {SERVER_NAME} entry under {spec.key!r}", path=str(path), hint=fix.hint()
        )
    return entry


def launch_in(spec: ClientSpec, entry: dict[str, Any], repo: Path, *, user: bool) -> Launch:
    """How `spec`'s client starts `entry` with the repository `repo` open."""

    def fill(value: object) -> str:
        text = str(value)
        return text.replace(FOLDER_VARIABLE, str(repo)) if spec.fills_folder else text

    raw = [str(a) for a in entry.get("args") or []]
    named = [x for x in (_root_arg(raw), entry.get("cwd")) if isinstance(x, str) and x]
    cwd: Path | None = None
    if isinstance(entry.get("cwd"), str) and entry["cwd"]:
        cwd = repo / fill(entry["cwd"])  # a relative one: from the project's folder
    elif user and not spec.fills_folder:
        cwd = repo  # the client starts a user entry's server in the project's folder
    env = {"PATH": MINIMAL_PATH, "HOME": os.environ.get("HOME", "/")}
    extra = entry.get("env")
    env.update({str(k): fill(v) for k, v in (extra if isinstance(extra, dict) else {}).items()})
    pinned = any(not (spec.fills_folder and FOLDER_VARIABLE in x) for x in named)
    return Launch(fill(entry["command"]), tuple(fill(a) for a in raw), cwd, env, pinned)


def _root_arg(args: list[str] | tuple[str, ...]) -> str | None:
    for i, arg in enumerate(args):
        if arg == "--root" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--root="):
            return arg.removeprefix("--root=")
    return None


def served_root(launch: Launch) -> Path | None:
    """The repository the entry serves: the one around its `--root` (from the folder it
    starts in) or, without one, around that folder, found as `serve` finds it (outside
    git, the folder of the index at or above it). None when the entry does not show it:
    no `serve` argument (a wrapper command), or no root and no folder of its own."""
    from kenso_git.api.workspace import find_workspace
    from kenso_git.api.workspace import root_with_index

    if "serve" not in launch.args:
        return None
    named = _root_arg(launch.args)
    if named is None and launch.cwd is None:
        return None  # served in whatever folder the client runs in
    start = (launch.cwd or Path("/")) / named if named is not None else launch.cwd
    try:
        return root_with_index(find_workspace(start)).root
    except UsageError:
        return None  # no such folder: starting it says what is wrong


def check_entry(launch: Launch, repo: Path, fix: Fix, *, user: bool = False) -> CheckResult:
    """Whether the entry, started as `launch` says, serves the repository `repo` with a
    usable index; `fix` writes a working entry."""
    import anyio

    served = served_root(launch)
    if served is not None and served != repo:
        return _elsewhere(served, repo, fix, user=user)
    try:
        outcome = anyio.run(_check, launch, repo, served, fix, user)
    except Exception as err:  # any failure to start or talk is the answer, not a crash
        return CheckResult(
            False,
            f"the entry does not start a working server: {_why(err)}",
            fix.hint("write it again for this installation:"),
        )
    if outcome.ok and user and launch.pinned:
        hint = fix.hint(
            "it names this repository, so every other project searches it too: write one "
            "that follows the project with"
        )
        return CheckResult(True, outcome.message, hint)
    return outcome


def _elsewhere(served: Path, repo: Path, fix: Fix, *, user: bool) -> CheckResult:
    message = f"the entry serves {served}, not this repository ({repo})"
    if user:
        message += ": a user-wide entry that names a repository serves it in every project"
    return CheckResult(False, message, fix.hint("write it again for this repository:"))


def _why(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _why(err.exceptions[0])
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def _check(
    launch: Launch, repo: Path, served: Path | None, fix: Fix, user: bool
) -> CheckResult:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=launch.command,
        args=list(launch.args),
        cwd=str(launch.cwd or "/"),
        env=launch.env,
    )
    state: Any = None
    with anyio.fail_after(START_TIMEOUT_S):
        async with Client(params) as client:
            result = await client.call_tool("health_check", {})
            health = json.loads(_text(result))
            usable = not result.is_error and health.get("ok")
            if usable:
                state = await client.call_tool("index_state", {})
    if not usable:
        reason = health.get("reason") or health.get("error") or _text(result)
        return CheckResult(
            False,
            f"the server starts but cannot serve: {reason}",
            _serve_hint(launch, served, health, fix),
        )
    reported = _reported_root(state)
    if reported is not None and reported != repo:
        return _elsewhere(reported, repo, fix, user=user)
    known = f" of {repo}" if served is not None or reported is not None else ""
    documents = health.get("documents")
    return CheckResult(
        True,
        f"the entry starts kenso-git {health.get('version')} and finds the index "
        f"({documents} document{'' if documents == 1 else 's'}){known}",
    )


def _reported_root(state: Any) -> Path | None:
    """The repository root `index_state` reports; None when it keeps it to itself (an
    agent scope answers `.`) or did not answer."""
    if state is None or state.is_error:
        return None
    try:
        root = json.loads(_text(state)).get("root")
    except (ValueError, AttributeError):
        return None
    return Path(root).resolve() if isinstance(root, str) and root != "." else None


def _serve_hint(
    launch: Launch, served: Path | None, health: dict[str, Any], fix: Fix
) -> str | None:
    """What to run when the server started but has no usable index: an ingest of the
    repository the entry serves, from any folder, or a new entry when it names none."""
    named = _root_arg(launch.args)
    if served is None and named is None:
        return fix.hint("the entry names no repository (--root): write it again with")
    if health.get("index") == "missing":
        return f"build the index once: `kenso-git ingest {served or named}`"
    return None  # the reason says what is wrong with the index there
