"""The repository request's pure rules: URL transports, roots (symlinks resolved by the
caller), names from paths and URLs, bulk priorities, and the payload's round trip."""

from __future__ import annotations

import pytest

from kenning.domain.errors import ValidationError
from kenning.domain.sources.code.repository_request import (
    RepositoryJob,
    RepositorySpec,
    check_git_url,
    check_priority,
    check_spec,
    default_name,
    file_url_path,
    under_roots,
)

SHA = "a" * 40


@pytest.mark.parametrize(
    "url",
    ["https://github.com/acme/shop.git", "http://git.local/shop", "ssh://git@host/shop.git",
     "file:///srv/repos/shop"],
)  # fmt: skip
def test_http_ssh_and_file_urls_are_accepted(url: str) -> None:
    assert check_git_url(url) == url


@pytest.mark.parametrize(
    "url",
    ["ext::sh -c touch% /tmp/pwned", "ext::sh", "fd::17", "ftp://host/shop", "git@host:shop",
     "ssh://-oProxyCommand=evil/x", "file://host/srv/shop", "file:relative", "https:///nohost",
     "https://host/a b", "--upload-pack=evil"],
)  # fmt: skip
def test_other_transports_and_options_are_refused_naming_git_url(url: str) -> None:
    with pytest.raises(ValidationError) as caught:
        check_git_url(url)
    assert caught.value.field == "gitUrl"


def test_roots_contain_their_subdirectories_only() -> None:
    assert under_roots("/srv/repos/shop", ["/srv/repos"]) == "/srv/repos/shop"
    assert under_roots("/srv/repos", ["/srv/repos"]) == "/srv/repos"
    for outside in ("/srv/repos-other/shop", "/srv", "/etc"):
        with pytest.raises(ValidationError, match="not under"):
            under_roots(outside, ["/srv/repos"])
    with pytest.raises(ValidationError, match="KENNING_REPOSITORY_ROOTS") as caught:
        under_roots("/srv/repos/shop", [], field="gitUrl")
    assert caught.value.field == "gitUrl"


def test_spec_needs_exactly_one_absolute_place() -> None:
    for spec in (RepositorySpec(None, None, None), RepositorySpec("/a", "file:///a", None),
                 RepositorySpec("a/b", None, None)):  # fmt: skip
        with pytest.raises(ValidationError) as caught:
            check_spec(spec)
        assert caught.value.field == "path"
    with pytest.raises(ValidationError) as caught:
        check_spec(RepositorySpec("/a", None, "x..y"))
    assert caught.value.field == "branch"


def test_names_and_file_url_paths() -> None:
    assert default_name("/srv/repos/shop.git/") == "shop"
    assert default_name("ssh://git@host/acme/Web App.git") == "Web-App"
    assert file_url_path("file:///srv/my%20repo") == "/srv/my repo"
    assert file_url_path("https://host/x") is None


def test_priorities_stay_in_the_bulk_lane() -> None:
    assert check_priority(3) == 3 and check_priority(9) == 9
    for wrong in (0, 2, 10):
        with pytest.raises(ValidationError):
            check_priority(wrong)


def test_the_payload_round_trips_and_refuses_what_it_cannot_read() -> None:
    job = RepositoryJob("shop", "feature/x", SHA, path="/srv/repos/shop")
    assert RepositoryJob.from_payload(job.payload()) == job
    assert job.state_urn == "code:shop@feature/x"
    assert job.identity.content_version == SHA
    body = job.payload()["repository"]
    for broken in ({}, {"repository": {**body, "commit": "HEAD"}},
                   {"repository": {**body, "gitUrl": "file:///x"}}):  # fmt: skip
        with pytest.raises(ValidationError):
            RepositoryJob.from_payload(broken)
