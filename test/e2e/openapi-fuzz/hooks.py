"""Schemathesis hooks for the api's fuzz run (test/e2e/openapi-fuzz.test.ts loads them via SCHEMATHESIS_HOOKS)."""

import schemathesis
from schemathesis.specs.openapi import checks as openapi_checks

# A call without a key or payment is refused with 402 payment_required (the interface's answer: a quote, not a
# charge), so ignored_auth counts 402 as refusing, as it does 401 and 403.
# A session, batch or crawl is visible only to whoever opened it: without the key it is 404, as any unknown one.
# A session open finds no free browser slot before it asks for payment (429 no_capacity): nothing is served.
# The runs share one stack, and sessions the first run opened hold their slots until their idle timeout.
openapi_checks.AUTH_REJECTION_STATUSES = frozenset({*openapi_checks.AUTH_REJECTION_STATUSES, 402, 404, 429})

# What the api answers when it refused the input itself, as opposed to the outcome of valid input (a host that
# does not resolve, an address the SSRF guard refuses, a page that failed): those are 400s too, with other codes.
INPUT_REFUSALS = {"invalid_request", "invalid_json"}


@schemathesis.check
def valid_input_not_refused(ctx, response, case):
    """Input the document calls valid must never be refused as invalid, whatever the outcome of the work."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        code = response.json().get("error", {}).get("code")
    except Exception:
        code = None
    if code in INPUT_REFUSALS and not _not_expressible(response):
        raise AssertionError(
            f"Valid input refused as {code}: the document allows what validation refuses\n{response.text[:500]}"
        )
    return None


# Names checked against lists the document leaves out, as they would take kilobytes in every tool's schema: a time
# zone is one of the IANA database as ICU knows it (about 600 names and aliases), a device one of Playwright's
# registry (over 200; the 400 lists those like the name given).
LISTED_ELSEWHERE = {"location.timezone", "device"}


def _not_expressible(response):
    """What the document cannot say: that json.schema compiles as a JSON Schema and holds no NUL anywhere (that
    would take a recursive schema), that a CSS selector parses, that a cookie fits Chromium's limits in bytes of
    UTF-8 (JSON Schema counts characters), that a time zone or a device is one of the names the api knows."""
    error = response.json().get("error", {})
    details = error.get("details") or []
    if details and all("json.schema" in str(d.get("field", "")) for d in details):
        return True
    if details and all(str(d.get("field", "")) in LISTED_ELSEWHERE for d in details):
        return True
    if details and all("bytes of UTF-8" in str(d.get("message", "")) for d in details):
        return True
    return "css selector" in str(error.get("message", "")).lower()


# The documented 5xx answers about the work itself (see the interface's error table); 500 and 501 never are.
OUTCOME_ERRORS = {
    502: {"upstream_failed", "render_failed", "result_too_large"},
    503: {"browser_crashed", "unavailable"},
    504: {"timeout"},
}


@schemathesis.check
def no_internal_error(ctx, response, case):
    """No 5xx but the documented outcomes of real work, each with its JSON error body and code."""
    status = response.status_code
    if status < 500:
        return None
    try:
        code = response.json().get("error", {}).get("code")
    except Exception:
        code = None
    if code not in OUTCOME_ERRORS.get(status, set()):
        raise AssertionError(f"Server error {status} ({code}): {response.text[:500]}")
    return None
