"""`python -m kenso_git` runs the command line."""

from __future__ import annotations

from kenso_git.entry import main

if __name__ == "__main__":
    main()
