"""How a path rule's finding names its link and writes its fix (KS022 KS023 KS024 KS025): what
kind of link a target is, its path part apart from `?query#fragment`, and the `Edit` that makes
it name another path or anchor, written back so that it still parses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kenso_git.lint.model import Edit
from kenso_git.text.mdlinks import CODE
from kenso_git.text.mdlinks import DEFINITION
from kenso_git.text.mdlinks import HTML_IMAGE
from kenso_git.text.mdlinks import HTML_KINDS
from kenso_git.text.mdlinks import HTML_LINK
from kenso_git.text.mdlinks import IMAGE
from kenso_git.text.mdlinks import written_destination
from kenso_git.text.mdlinks import written_html

if TYPE_CHECKING:
    from kenso_git.lint.targets import Target

_WHAT = {
    IMAGE: "image",
    DEFINITION: "reference definition",
    CODE: "code path",
    HTML_LINK: "HTML link",
    HTML_IMAGE: "HTML image",
}


def what(target: Target) -> str:
    """What the finding calls `target`: "link", "image", "code path"..."""
    return _WHAT.get(target.ref.kind, "link")


def path_part(raw: str) -> tuple[str, str]:
    """(path, the `?query#fragment` after it) of a link target as written."""
    cut = min((i for i in (raw.find("?"), raw.find("#")) if i >= 0), default=len(raw))
    return raw[:cut], raw[cut:]


def link_edit(target: Target, new: str) -> Edit:
    """The fix that makes `target` name `new`: a link's destination written back so that
    it still parses (`<...>` for a space, parentheses escaped unless balanced)."""
    ref = target.ref
    if ref.kind == CODE:
        return Edit(target.line, target.column, ref.target, new)
    if ref.kind in HTML_KINDS:
        return Edit(target.line, target.column, ref.written or ref.target, written_html(new))
    written = written_destination(new, angled=ref.written[:1] == "<")
    return Edit(target.line, target.column, ref.written or ref.target, written)
