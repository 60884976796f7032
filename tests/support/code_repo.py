"""A small git repository in five languages, made by the tests: classes, methods, imports
and inheritance; a second commit modifies, deletes and renames files."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent

FIRST = {
    "app/base.py": dedent(
        """\
        import os


        class Base:
            def ping(self) -> str:
                return os.name
        """
    ),
    "app/service.py": dedent(
        """\
        from app.base import Base as B
        import json


        class UserService(B):
            # Finds users.

            def find(self, user_id: int) -> dict:
                return json.loads('{}')

            def save(self, user: dict) -> None:
                pass


        def helper(x):
            return x
        """
    ),
    "src/main/kotlin/com/acme/BaseService.kt": dedent(
        """\
        package com.acme

        open class BaseService {
            fun start() {}
        }
        """
    ),
    "src/main/kotlin/com/acme/UserService.kt": dedent(
        """\
        package com.acme

        import com.acme.BaseService
        import kotlinx.coroutines.launch

        class UserService(private val repo: Repo) : BaseService(), Auditable {
            fun find(id: Long): User? = repo.get(id)

            suspend fun save(user: User) {
                repo.put(user)
            }
        }

        interface Auditable {
            fun audit()
        }
        """
    ),
    "src/main/java/com/acme/Order.java": dedent(
        """\
        package com.acme;

        import java.util.List;

        public class Order extends Entity implements Comparable<Order> {
            public int compareTo(Order other) { return 0; }

            public List<String> lines() {
                return List.of();
            }
        }
        """
    ),
    "src/main/java/com/acme/Entity.java": dedent(
        """\
        package com.acme;

        public abstract class Entity {
            public long id() { return 1; }
        }
        """
    ),
    "web/base.ts": "export class Base {\n  hello(): string {\n    return 'hi';\n  }\n}\n",
    "web/service.ts": dedent(
        """\
        import { Base } from './base';
        import * as path from 'path';

        export class WebService extends Base {
          load(id: number): string {
            return path.join('a', String(id));
          }
        }

        export function render(value: string): string {
          return value;
        }
        """
    ),
    "web/util.js": dedent(
        """\
        const fs = require('fs');

        class Reader {
          read(name) {
            return fs.readFileSync(name);
          }
        }

        const shout = (text) => text.toUpperCase();
        """
    ),
    "cmd/server.go": dedent(
        """\
        package main

        import (
            "fmt"
            "net/http"
        )

        type Server struct {
            Base
            port int
        }

        func (s *Server) Start() error {
            fmt.Println(s.port)
            return http.ListenAndServe("", nil)
        }

        func main() {
            _ = (&Server{}).Start()
        }
        """
    ),
    "README.md": "# not code\n",
    "web/app.min.js": "var a=1;" * 400 + "\n",
    "assets/logo.bin": "\x00\x01binary",
}


# The commits' author dates (their committer dates are when the test ran).
FIRST_DATE = "2023-02-01T10:00:00+01:00"
SECOND_DATE = "2024-03-01T10:00:00+00:00"


@dataclass(frozen=True, slots=True)
class CodeRepo:
    """The repository and its two commits."""

    root: Path
    first: str
    second: str


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its output."""
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, check=True, text=True
    )
    return done.stdout


def make_code_repo(root: Path) -> CodeRepo:
    """``root`` as a repository: the files above committed (authored at ``FIRST_DATE``),
    then a second commit (``SECOND_DATE``) that modifies ``app/service.py``, deletes
    ``web/util.js`` and renames ``web/base.ts``."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "Test")
    for path, text in FIRST.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first", f"--date={FIRST_DATE}")
    first = git(root, "rev-parse", "HEAD").strip()
    service = root / "app/service.py"
    service.write_text(service.read_text() + "\n\ndef extra() -> int:\n    return 2\n")
    git(root, "rm", "-q", "web/util.js")
    git(root, "mv", "web/base.ts", "web/shared.ts")
    (root / "web/service.ts").write_text(
        (root / "web/service.ts").read_text().replace("'./base'", "'./shared'")
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "second", f"--date={SECOND_DATE}")
    return CodeRepo(root, first, git(root, "rev-parse", "HEAD").strip())
