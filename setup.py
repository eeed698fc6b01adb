"""The one compiled part of kenso-git: `kenso_git.text._expand`, an optional speed-up.

Everything else is configured in pyproject.toml. The extension is optional: where no C
compiler is available the build goes on without it and `kenso_git.text.terms` uses its Python
version of the same function (identical output, slower cold ingests).
"""

from __future__ import annotations

from setuptools import Extension
from setuptools import setup

setup(
    ext_modules=[Extension("kenso_git.text._expand", ["kenso_git/text/_expand.c"], optional=True)],
)
