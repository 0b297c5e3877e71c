"""Teams and the organiser: passwords, upload tokens, sessions, and logins held back.

* Passwords are stored as argon2id hashes (argon2-cffi's ``PasswordHasher``, RFC 9106's
  profile), rehashed at a login when the parameters have changed.
* Upload tokens (for ``judge submit`` and the API) are 32 random bytes; only their
  SHA-256 is stored (a random token needs no slow hash), so the store alone lets
  nobody upload.  A new token replaces the old one.
* A session is a random cookie whose SHA-256 names a row of ``sessions``, with the
  account's *session version* at login and the session's CSRF token.  Changing the
  password raises the version and deletes the rows: every session of the team ends,
  on every machine.
* A login is refused for a while (HTTP 429) once a team, or an address, has had too
  many wrong passwords within the window (``rate_limits:`` of arena.yaml), the right
  password included: a guesser learns nothing more until the window has passed.
  Each attempt is counted before its hash is checked (and uncounted when it was
  right), so guesses sent at once get no more tries than one at a time; failures
  older than the window are deleted as new ones come.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from judge.arena.config import RateLimits
from judge.arena.store import Account, Role, Store, now_iso
from judge.names import normalise

#: How long a session lasts without a new login.
SESSION_S = 14 * 24 * 3600
#: The organiser's login name (a team may not be called so).
ORGANISER = "organiser"
#: Letters of generated passwords: no 0/O, 1/l/I to misread from a printed sheet.
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
TOKEN_PREFIX = "arena_"


def name_key(name: str) -> str:
    """How names are compared: NFC, case folded (``Rồng Biển`` is ``rồng biển``)."""
    return normalise(name).casefold()


def new_password() -> str:
    """Four groups of four letters and digits (about 80 bits), easy to read and type."""
    return "-".join("".join(secrets.choice(_ALPHABET) for _ in range(4)) for _ in range(4))


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Login:
    """What became of a login: the account, or why not (``retry_after_s``: held back)."""

    account: Account | None
    retry_after_s: float | None = None


@dataclass(frozen=True)
class Session:
    account: Account
    csrf: str


class Accounts:
    """The accounts of one arena store."""

    def __init__(self, store: Store, hasher: PasswordHasher | None = None):
        self.store = store
        self.hasher = hasher or PasswordHasher()

    # --------------------------------------------------------------- making
    def add_in(
        self,
        conn: sqlite3.Connection,
        role: Role,
        name: str,
        members: str,
        password: str,
        token: str | None,
    ) -> int:
        cur = conn.execute(
            "INSERT INTO accounts(role, name, name_key, members, password_hash, token_hash, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                role.value,
                normalise(name),
                name_key(name),
                members,
                self.hasher.hash(password),
                digest(token) if token else None,
                now_iso(),
            ),
        )
        return int(cur.lastrowid or 0)

    def by_name(self, name: str) -> tuple[Account, str] | None:
        """The account of this name and its password hash."""
        row = self.store.row(
            "SELECT id, role, name, members, session_version, password_hash FROM accounts "
            "WHERE name_key = ?",
            (name_key(name),),
        )
        if row is None:
            return None
        return Account(int(row[0]), Role(row[1]), str(row[2]), str(row[3]), int(row[4])), str(
            row[5]
        )

    # ---------------------------------------------------------------- tokens
    def by_token(self, token: str) -> Account | None:
        """The team whose upload token this is (None for any other text)."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        row = self.store.row("SELECT id FROM accounts WHERE token_hash = ?", (digest(token),))
        return None if row is None else self.store.account(int(row[0]))

    def replace_token(self, account_id: int) -> str:
        """A new upload token for the team; the old one stops working at once."""
        token = new_token()
        self.store.write(
            lambda conn: conn.execute(
                "UPDATE accounts SET token_hash = ? WHERE id = ?", (digest(token), account_id)
            )
        )
        return token

    # ---------------------------------------------------------------- logins
    def login(
        self, name: str, password: str, address: str, limits: RateLimits, now: float | None = None
    ) -> Login:
        attempt, wait = self._count_attempt(name, address, limits, now)
        if wait is not None:
            return Login(None, max(1.0, wait))
        account = self._verified(name, password)
        if account is None:
            return Login(None)
        self._forget_attempt(attempt)
        return Login(account)

    def _count_attempt(
        self, name: str, address: str, limits: RateLimits, now: float | None
    ) -> tuple[int | None, float | None]:
        """A password attempt for team ``name`` from ``address``, counted as a failure until
        it is known right; or how long the team or the address is held back."""
        t = time.time() if now is None else now

        def reserve(conn: sqlite3.Connection) -> tuple[int | None, float | None]:
            # what no longer counts is forgotten; then this attempt is counted as a failure
            # before its (slow) hash is checked, in the transaction that looked at the count:
            # guesses sent at once cannot all pass the look before any of them is counted
            conn.execute("DELETE FROM login_failures WHERE at <= ?", (t - limits.login_window_s,))
            wait = _held_back(conn, name, address, limits, t)
            if wait is not None:
                return None, wait
            cur = conn.execute(
                "INSERT INTO login_failures(team_key, address, at) VALUES (?, ?, ?)",
                (name_key(name), address, t),
            )
            return int(cur.lastrowid or 0), None

        return self.store.write(reserve)

    def _forget_attempt(self, attempt: int | None) -> None:
        self.store.write(
            lambda conn: conn.execute("DELETE FROM login_failures WHERE id = ?", (attempt,))
        )

    def _verified(self, name: str, password: str) -> Account | None:
        """The account, if this is its password (rehashed when the parameters changed)."""
        found = self.by_name(name)
        if found is None:
            self.hasher.hash(password)  # as long as a wrong password: no name is told apart
            return None
        account, stored = found
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if self.hasher.check_needs_rehash(stored):
            new = self.hasher.hash(password)
            self.store.write(
                lambda conn: conn.execute(
                    "UPDATE accounts SET password_hash = ? WHERE id = ?", (new, account.id)
                )
            )
        return account

    def change_password(
        self,
        account: Account,
        current: str,
        new: str,
        address: str,
        limits: RateLimits,
        now: float | None = None,
    ) -> Login:
        """The new password, if ``current`` is right: every session of the account ends.

        A wrong ``current`` counts as a wrong password at a login does (one held back is
        held back here too): a session left open on a shared machine is no way to guess
        the team's password faster than the login page allows."""
        checked = self.login(account.name, current, address, limits, now)
        if checked.account is None or checked.account.id != account.id:
            return Login(None, checked.retry_after_s)
        new_hash = self.hasher.hash(new)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE accounts SET password_hash = ?, session_version = session_version + 1 "
                "WHERE id = ?",
                (new_hash, account.id),
            )
            conn.execute("DELETE FROM sessions WHERE account_id = ?", (account.id,))

        self.store.write(write)
        return Login(account)

    # -------------------------------------------------------------- sessions
    def open_session(self, account: Account, now: float | None = None) -> tuple[str, str]:
        """A new session: its cookie value and its CSRF token."""
        t = time.time() if now is None else now
        cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM sessions WHERE expires_at < ?", (t,))
            conn.execute(
                "INSERT INTO sessions(token_hash, account_id, session_version, csrf, created_at, "
                "expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                (digest(cookie), account.id, account.session_version, csrf, t, t + SESSION_S),
            )

        self.store.write(write)
        return cookie, csrf

    def session(self, cookie: str, now: float | None = None) -> Session | None:
        """The live session of this cookie: unexpired, and of the account's session version."""
        if not cookie or len(cookie) > 200:
            return None
        t = time.time() if now is None else now
        row = self.store.row(
            "SELECT account_id, session_version, csrf, expires_at FROM sessions "
            "WHERE token_hash = ?",
            (digest(cookie),),
        )
        if row is None or float(row[3]) < t:
            return None
        account = self.store.account(int(row[0]))
        if account is None or account.session_version != int(row[1]):
            return None
        return Session(account, str(row[2]))

    def end_session(self, cookie: str) -> None:
        self.store.write(
            lambda conn: conn.execute(
                "DELETE FROM sessions WHERE token_hash = ?", (digest(cookie),)
            )
        )


def _held_back(
    conn: sqlite3.Connection, name: str, address: str, limits: RateLimits, now: float
) -> float | None:
    """Seconds until this address may try this team again (None: it may now).

    A team is held back for everyone only by failures from many addresses: counted for
    one team alone, anybody who knows a team's name could keep it out of its own
    account by guessing wrong a few times."""
    since = now - limits.login_window_s
    waits = []
    for where, values, most in (
        ("team_key = ? AND address = ?", (name_key(name), address), limits.login_failures_per_team),
        ("team_key = ?", (name_key(name),), limits.login_failures_per_team_everywhere),
        ("address = ?", (address,), limits.login_failures_per_address),
    ):
        rows = conn.execute(
            f"SELECT at FROM login_failures WHERE {where} AND at > ? ORDER BY at DESC",
            (*values, since),
        ).fetchall()
        if len(rows) >= most:
            # free again once the oldest failure that counts leaves the window
            waits.append(float(rows[most - 1][0]) + limits.login_window_s - now)
    return max(waits) if waits else None


def same(a: str, b: str) -> bool:
    """Two secrets compared in a time that does not tell how much of them matched."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
