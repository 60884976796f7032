"""The read benchmark's ratios and its text table."""

from __future__ import annotations

from typing import Any

from bench._read_filtered import filtered_lines

_PATHS = ("sql", "domain", "graphql", "cypher", "http_floor")
_OPS = ("search", "keyword_search", "neighbors")


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else float("nan")


def ratios(ops: dict[str, Any]) -> dict[str, dict[str, float]]:
    """GraphQL against raw SQL (and against the in-process use case) per operation:
    latency ratios above 1 and throughput ratios below 1 are the GraphQL/HTTP cost."""
    found: dict[str, dict[str, float]] = {}
    for op in _OPS:
        latency, load = ops[op]["latency"], ops[op]["throughput"]
        gql = latency["graphql"]
        found[op] = {
            "p50_graphql_over_sql": _ratio(gql["p50_ms"], latency["sql"]["p50_ms"]),
            "p95_graphql_over_sql": _ratio(gql["p95_ms"], latency["sql"]["p95_ms"]),
            "qps_graphql_over_sql": _ratio(load["graphql"]["qps"], load["sql"]["qps"]),
            "p50_graphql_over_domain": _ratio(gql["p50_ms"], latency["domain"]["p50_ms"]),
            "qps_graphql_over_domain": _ratio(load["graphql"]["qps"], load["domain"]["qps"]),
            "p50_added_ms": gql["p50_ms"] - latency["sql"]["p50_ms"],
            # The server's CPU beyond what the same use case costs in-process: the GraphQL
            # and HTTP layers' own work (one at a time, so little contention inflates it).
            "graphql_layer_cpu_ms": ops[op]["sequential_cpu"]["graphql"]["server_ms"]
            - ops[op]["sequential_cpu"]["domain"]["client_ms"],
        }
    return found


def _sequential_row(op: str, path: str, latency: dict[str, Any], cpu: dict[str, Any]) -> str:
    return (
        f"{op:<10} {path:<10} {latency['p50_ms']:>7.2f} {latency['p95_ms']:>7.2f} "
        f"{latency['mean_ms']:>7.2f} | {cpu['client_ms']:>6.2f} {cpu['server_ms']:>6.2f} "
        f"{cpu['postgres_ms']:>6.2f}"
    )


def _load_row(op: str, path: str, load: dict[str, Any]) -> str:
    return (
        f"{op:<10} {path:<10} {load['qps']:>7.1f} {load['latency']['p50_ms']:>7.2f} "
        f"{load['latency']['p95_ms']:>7.2f} | {load['client_cpu_ms']:>6.2f} "
        f"{load['server_cpu_ms']:>6.2f} {load['postgres_cpu_ms']:>6.2f} "
        f"{load['machine_cpu_ms']:>6.2f}"
    )


def _rows(ops: dict[str, Any], row: Any, *parts: str) -> list[str]:
    lines = []
    for op in (*_OPS, "http_floor"):
        found = ops[op]
        for path in _PATHS:
            if path in found[parts[0]] and all(path in found[part] for part in parts):
                lines.append(row(op, path, *(found[part][path] for part in parts)))
    return lines


def background_line(background: dict[str, Any]) -> str:
    """What ran in the database beside the measurement.

    Example: ``background_line({"settle_wait_s": 12.4, "vacuums_running_at_start": 0,
    "autovacuum_runs": 0, "vacuums_running_at_end": 1})`` starts ``"background: waited 12 s
    for vacuums to end, then a checkpoint; 0 vacuums still running at the start"``.
    """
    resident = background.get("resident", {})
    loaded = (
        f"the server loaded {resident['rows']['graphql']:,} resident rows in "
        f"{resident['server_wait_s']:.1f} s after the warm-up; "
        if resident
        else ""
    )
    return (
        f"background: {loaded}waited {background['settle_wait_s']:.0f} s for vacuums to end, "
        f"then a checkpoint; {background.get('vacuums_running_at_start', 0)} vacuums still running "
        f"at the start, {background['autovacuum_runs']} autovacuum/autoanalyze runs ended "
        f"during the passes, {background.get('vacuums_running_at_end', 0)} running at the end "
        "(a vacuum of the postings slows searches while it runs)"
    )


def render(report: dict[str, Any]) -> str:
    """The figures as two tables, then the ratios."""
    ops = report["ops"]
    concurrency = ops["search"]["throughput"]["sql"]["concurrency"]
    first = (
        f"{'op':<10} {'path':<10} {'p50':>7} {'p95':>7} {'mean':>7} | "
        f"{'client':>6} {'server':>6} {'pg':>6}"
    )
    second = (
        f"{'op':<10} {'path':<10} {'qps':>7} {'p50':>7} {'p95':>7} | "
        f"{'client':>6} {'server':>6} {'pg':>6} {'all':>6}"
    )
    lines = ["one at a time: latency ms | CPU ms per query", first, "-" * len(first)]
    lines += _rows(ops, _sequential_row, "latency", "sequential_cpu")
    for op in _OPS:
        agree, count = ops[op]["agree_with_sql"], ops[op]["latency"]["sql"]["count"]
        same = ", ".join(f"{path} {n}/{count}" for path, n in agree.items() if path != "sql")
        lines.append(f"{op}: answers equal to sql's: {same}")
    lines += [
        "",
        f"{concurrency} in flight: queries/s, latency ms | CPU ms per query ('all' = machine)",
        second,
        "-" * len(second),
    ]
    lines += _rows(ops, _load_row, "throughput")
    lines.append("")
    for op in _OPS:
        profile = ops[op].get("server_profile_ms")
        if profile:
            parts = ", ".join(f"{name} {ms:.2f}" for name, ms in profile.items())
            lines.append(f"{op}: server CPU ms per GraphQL query by layer: {parts}")
    load = report["machine"]["load_average_1m_before_after"]
    lines.append(
        f"machine: {report['machine']['cpus']} CPUs, 1-min load {load[0]:.1f} before, "
        f"{load[1]:.1f} after (other work on the machine shows as 'all' above the parts)"
    )
    if report.get("background"):
        lines.append(background_line(report["background"]))
    for op, values in report["ratios"].items():
        lines.append(
            f"{op}: GraphQL/SQL p50 x{values['p50_graphql_over_sql']:.2f} "
            f"(+{values['p50_added_ms']:.2f} ms), p95 x{values['p95_graphql_over_sql']:.2f}, "
            f"throughput x{values['qps_graphql_over_sql']:.2f}; GraphQL/domain p50 "
            f"x{values['p50_graphql_over_domain']:.2f}, throughput "
            f"x{values['qps_graphql_over_domain']:.2f}; server CPU beyond the use case "
            f"{values['graphql_layer_cpu_ms']:.2f} ms/query"
        )
    lines.append(_cypher_line(ops["neighbors"]))
    lines += quality_lines(report.get("search_quality"), report.get("ingest_at_size"))
    lines += filtered_lines(report.get("filtered_search"))
    return "\n".join(lines)


def _keyword_line(keyword: dict[str, Any], label: str) -> str:
    over, lat = keyword[f"overlap_at_{keyword['depth']}"], keyword["latency"]
    return (
        f"keyword top-{keyword['depth']} vs exhaustive ({keyword['queries']} {label}): "
        f"overlap mean {over['mean']:.3f}, min {over['min']:.2f}, identical "
        f"{keyword['identical_share']:.0%}, heads cut {keyword['cut_share']:.0%}, fell back "
        f"{keyword['fell_back_share']:.0%}; p50/p95 top-k {lat['topk']['p50_ms']:.2f}/"
        f"{lat['topk']['p95_ms']:.2f} ms, exhaustive {lat['exhaustive']['p50_ms']:.2f}/"
        f"{lat['exhaustive']['p95_ms']:.2f} ms"
    )


def quality_lines(quality: dict[str, Any] | None, writes: dict[str, Any] | None) -> list[str]:
    """Vector recall against the exact scan, KEYWORD top-k against exhaustive, ingest at
    size against an empty database; each only when the run measured it."""
    lines = []
    if quality:
        vector = quality["vector_recall"]
        at10, deep, lat = vector["recall_at_10"], vector["recall_at_depth"], vector["latency"]
        lines.append(
            f"vector recall@10 vs exact scan ({vector['queries']} queries): mean "
            f"{at10['mean']:.3f}, min {at10['min']:.2f}; @{vector['hybrid_depth']} mean "
            f"{deep['mean']:.3f}, min {deep['min']:.2f}; server p50 "
            f"{lat['server']['p50_ms']:.2f} ms, exact scan p50 {lat['exact']['p50_ms']:.2f} ms"
            f"{'' if vector['server_plan_uses_hnsw'] else ' (server plan used no HNSW index)'}"
        )
        kinds = vector.get("recall_at_10_by_kind", {})
        if kinds:
            lines.append(
                "  recall@10 by query kind: "
                + ", ".join(f"{kind} {value['mean']:.3f}" for kind, value in kinds.items())
            )
        shares = vector.get("server_exact_share", {})
        if shares:
            lines.append(
                "  answered exactly (the scan where the reader's clients hold at most "
                f"{quality.get('exact_max_rows', 'n/a')} chunks and the probe's best similarity "
                f"is below {quality.get('exact_below', float('nan'))}; above that, resident "
                f"copies of up to {quality.get('resident_rows', 'n/a')} rows answer every "
                f"search, {vector.get('resident_rows', 0):,} held): "
                + ", ".join(f"{kind} {share:.0%}" for kind, share in shares.items())
            )
        for name, label in (("keyword_agreement", "queries"), ("keyword_sentences", "sentences")):
            if name in quality:
                lines.append(_keyword_line(quality[name], label))
    if writes:
        corpus, empty = writes["corpus"], writes["empty"]
        median = writes.get("ratio_median_of_rounds", float("nan"))
        lines.append(
            f"ingest ({corpus['documents']} docs of seed {writes.get('documents_seed')}, "
            f"{corpus['chunks']} chunks, "
            f"{writes['concurrency']} in flight, after {writes.get('warm_up_documents', 0)} "
            f"unmeasured into each): {corpus['docs_per_s']:.1f} docs/s with "
            f"{writes['corpus_chunks_before']:,} chunks stored, {empty['docs_per_s']:.1f} into an "
            f"empty database: x{writes['ratio_corpus_over_empty']:.2f} (median of "
            f"{writes['rounds']} paired rounds x{median:.2f}); p50 "
            f"{corpus['latency']['p50_ms']:.1f} vs {empty['latency']['p50_ms']:.1f} ms/doc"
        )
    return lines


def _cypher_line(neighbors: dict[str, Any]) -> str:
    cypher, same = neighbors["latency"]["cypher"], neighbors["cypher"]
    sql = same["sql_same_run"]
    return (
        f"neighbors as AGE Cypher (*1..2, {same['count']} keys): p50 {cypher['p50_ms']:.1f} ms, "
        f"p95 {cypher['p95_ms']:.1f} ms vs SQL p50 {sql['p50_ms']:.2f} ms in the same pass "
        f"(x{_ratio(cypher['p50_ms'], sql['p50_ms']):.1f}); node sets equal to SQL's "
        f"{same['node_sets_equal_to_sql']}/{same['count']} ({same['differs']})"
    )
