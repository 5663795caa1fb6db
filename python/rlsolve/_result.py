"""check's JSON envelope as dataclasses."""

from dataclasses import dataclass, field
from typing import List, Optional


@dataclass(frozen=True)
class Position:
    """Where a diagnostic points: a file, line and column (from 1) when the
    value has one, and the key path (cluster.component_placement.actor)
    when the config came as an object."""

    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    end_line: Optional[int] = None
    end_column: Optional[int] = None
    key_path: Optional[str] = None

    def __str__(self):
        where = ""
        if self.file:
            where = self.file
            if self.line:
                where += ":%d:%d" % (self.line, self.column or 1)
        if self.key_path:
            return "%s (%s)" % (self.key_path, where) if where else self.key_path
        return where or "<input>"


@dataclass(frozen=True)
class Fact:
    """One member of a conflict's core: what it says and where."""

    message: str
    position: Optional[Position] = None


@dataclass(frozen=True)
class Edit:
    position: Optional[Position]
    new_text: str


@dataclass(frozen=True)
class Fix:
    message: str
    edits: List[Edit] = field(default_factory=list)


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str  # "error", "warning" or "note"
    summary: str
    position: Optional[Position] = None
    core: List[Fact] = field(default_factory=list)
    why: str = ""
    fixes: List[Fix] = field(default_factory=list)
    denied_by: str = ""

    def __str__(self):
        return "%s[%s]: %s\n --> %s" % (self.severity, self.code, self.summary, self.position or "<input>")


@dataclass(frozen=True)
class Result:
    """What check found: ok (no errors), the diagnostics, and the report
    as `rlsolve check` prints it."""

    ok: bool
    diagnostics: List[Diagnostic]
    text: str

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]

    def __bool__(self):
        return self.ok


class RlsolveError(Exception):
    """rlsolve could not judge the config: a usage or I/O error (exit 2),
    an internal error or its solver budget spent (exit 3)."""

    def __init__(self, message, exit_code=None, result=None):
        super().__init__(message)
        self.exit_code = exit_code
        self.result = result


class PlacementError(RlsolveError):
    """The placement is invalid; the message is rlsolve's report."""


def diagnostics_from(envelope, locate):
    """The envelope's diagnostics; locate(range dict or None) -> Position."""
    out = []
    for d in envelope.get("diagnostics") or []:
        out.append(Diagnostic(
            code=d.get("code", ""),
            severity=d.get("severity", ""),
            summary=d.get("summary", ""),
            position=locate(d.get("range")),
            core=[Fact(f.get("message", ""), locate(f.get("range"))) for f in d.get("core") or []],
            why=d.get("why", ""),
            fixes=[Fix(f.get("message", ""), [Edit(locate(e.get("range")), e.get("new_text", ""))
                                             for e in f.get("edits") or []])
                   for f in d.get("fixes") or []],
            denied_by=d.get("denied_by", ""),
        ))
    return out
