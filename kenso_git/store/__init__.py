"""SQLite storage of the index: schema (`schema`) and connections and writes (`db`)."""

from __future__ import annotations
