"""Hugo's `ref`/`relref` shortcode as the search signals read it: the path it names (pure)."""

from __future__ import annotations

import re

# `{{< ref "target" >}}`, `{{% relref target %}}`, `{{< ref path="target" >}}`: group 1 is the
# path. Lenient (found anywhere in a line, arguments after the path ignored); lint's stricter
# reading of a whole link destination is `kenso_git.lint.hugoref.parse_ref`.
REF_PATH = re.compile(r"\{\{[<%]\s*(?:rel)?ref\s+(?:path=)?\"?([^\"\s>%}]+)\"?")
