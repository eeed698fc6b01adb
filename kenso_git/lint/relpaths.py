"""A path written from one page to another: a moved target re-written as the link wrote it
(`relative_to`: root-relative, `./` or folder-relative, escapes kept), the paths a
relates_to entry may name (`relation_paths`), and a moved page's link read from its old
folder (`Rebased`)."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote
from urllib.parse import unquote

from kenso_git.records import NamedTuple
from kenso_git.repo.moves import Move
from kenso_git.repo.moves import Origin
from kenso_git.text.parse import normalise_target


class Rebased(NamedTuple):
    """A moved page's dead relative link read from the page's old folder: the path it
    names from there, now in the tree (`real`); when git moved that path too, from where
    (`was`) and the move."""

    origin: Origin  # where the page was
    real: str
    was: str = ""
    move: Move | None = None


def relative_to(
    source: str, raw_path: str, new: str, *, link: bool = True, base: str | None = None
) -> str:
    """`new` (root-relative) written as `raw_path` was: root-relative, `./`, or relative to
    the folder of `source` (or to `base`, the folder a site reads the page's links from);
    a trailing slash and percent-escapes kept. In a `link`, a `%`, `#` or `?` of a file
    name is escaped (`%25`, `%23`, `%3F`): read as written, it would end the path or escape
    what follows (`c#1 one.md` named `c`)."""
    folder = posixpath.dirname(source) if base is None else base
    out = _relative(folder, raw_path, new)
    if "%" in raw_path:
        return _escaped_as(raw_path, out)
    if link and ("%" in out or "#" in out or "?" in out):
        return out.replace("%", "%25").replace("#", "%23").replace("?", "%3F")
    return out


_URL_SAFE = "/:@!$&'()*+,;=~"  # what a percent-escaped path keeps as it is
_ESCAPED_NON_ASCII = re.compile(r"%[89a-fA-F][0-9a-fA-F]")  # a UTF-8 byte written escaped
_ASCII_RUN = re.compile(r"[\x00-\x7f]+")


def _escaped_as(raw_path: str, out: str) -> str:
    """`out` percent-escaped as `raw_path` is: what a URL path must escape (`%`, a space),
    and letters past ASCII only when `raw_path` escapes such letters too (`%C3%A9`); a
    `é` written as it is stays so (CommonMark takes it, and `--fix` turned it into
    `%C3%A9` while it fixed the case of a folder)."""
    if _ESCAPED_NON_ASCII.search(raw_path):
        return quote(out, safe=_URL_SAFE)
    return _ASCII_RUN.sub(lambda run: quote(run[0], safe=_URL_SAFE), out)


def _relative(folder: str, raw_path: str, new: str) -> str:
    if raw_path.startswith("/"):
        out = "/" + new
    else:
        out = posixpath.relpath(new or ".", folder or ".")
        if raw_path.startswith("./") and not out.startswith("."):
            out = "./" + out
    if raw_path.endswith("/") and not out.endswith("/"):
        out += "/"
    return out


def relation_paths(source: str, target: str) -> tuple[str, ...]:
    """The root-relative paths a relates_to entry may name, as KS002 tries them: `./x` and
    `../x` from the source's folder; a bare path root-relative first, then from the folder."""
    first = normalise_target(source, target)
    if target.startswith(("./", "../", "/")) or "/" not in source:
        return (first,)
    second = normalise_target(source, "./" + target)
    return (first, second) if second != first else (first,)


def climbs_out(source: str, raw: str) -> bool:
    """Whether the relative link target `raw` (as `text.mdlinks` reads it) written in
    `source` climbs above the repository root (`../../img/a.png` in `docs/p.md`): dead in
    the tree, and when git moved `source` up, written for its old folder."""
    path = raw.partition("#")[0].partition("?")[0]
    if "%" in path:
        path = unquote(path)
    if not path or path[:1] in ("/", "~") or "../" not in path + "/":
        return False
    normal = normalise_target(source, path if path.startswith(".") else "./" + path)
    return normal == ".." or normal.startswith("../")
