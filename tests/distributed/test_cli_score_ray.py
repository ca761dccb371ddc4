"""``trailcheck score --executor ray`` prints what the local bulk path prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import SHOP_DATASET, shop_lines, shop_trace, write_jsonl, write_parquet
from trailcheck.cli import run_cli
from trailcheck.store import Store

pytestmark = pytest.mark.live


@pytest.mark.usefixtures("local_ray")
def test_score_on_ray_prints_the_local_grades_and_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shop.yaml").write_text(SHOP_DATASET)
    lines = shop_lines(30)
    lines[7] = b'{"trace_id": "bad", "spans": [{"span_id": "s"}]}'
    path = write_jsonl(tmp_path / "traces.jsonl", lines)
    score = ["score", str(path), "--dataset", str(tmp_path / "shop.yaml"), "--json"]
    printed = []
    for where in (["--workers", "2"], ["--executor", "ray", "--num-cpus", "0.5"]):
        assert run_cli([*score, *where]) == 2  # a rejected line and unmatched traces
        printed.append(capsys.readouterr())
    local, remote = printed
    assert remote.out == local.out
    assert remote.err == local.err
    assert '"status": "failed"' in local.out or '"status":"failed"' in local.out
    assert "rejected: " in local.err


@pytest.mark.usefixtures("local_ray")
def test_score_on_ray_grades_the_store_as_the_local_path_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shop.yaml").write_text(SHOP_DATASET)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(url) as store:
        store.ingest([shop_trace(index) for index in range(450)])  # three pages of the store
    score = ["score", "--db", url, "--dataset", str(tmp_path / "shop.yaml"), "--json"]
    printed = []
    for where in (["--workers", "2"], ["--executor", "ray"]):
        assert run_cli([*score, *where]) == 2  # traces that name no case
        printed.append(capsys.readouterr())
    local, remote = printed
    assert remote.out == local.out
    assert remote.err == local.err
    assert "375/375 traces passed" not in local.err  # some fail: the comparison is not vacuous
    assert local.out.count('"trace_id"') == 375  # every trace naming a case, graded


@pytest.mark.usefixtures("local_ray")
def test_score_on_ray_reads_parquet_shards_a_row_group_a_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    (tmp_path / "shop.yaml").write_text(SHOP_DATASET)
    lines: list[bytes | None] = list(shop_lines(40))
    lines[5] = None  # a null row: rejected, naming its row
    shards = [
        write_parquet(tmp_path / "part-0.parquet", lines[:25], group=7),
        write_parquet(tmp_path / "part-1.parquet", lines[25:], group=7),
    ]
    score = ["score", *map(str, shards), "--dataset", str(tmp_path / "shop.yaml"), "--json"]
    printed = []
    for where in (["--workers", "2"], ["--executor", "ray"]):
        assert run_cli([*score, *where]) == 2
        printed.append(capsys.readouterr())
    local, remote = printed
    assert (remote.out, remote.err) == (local.out, local.err)
    assert f"rejected: {shards[0]}:6: field 'trace': null" in local.err
    assert local.out.count('"trace_id"') == 34  # 39 traces read, 5 name no case


@pytest.mark.parametrize("option", ["--by-session", "--emit-otel=http://127.0.0.1:9/v1/traces"])
def test_score_on_ray_refuses_what_only_the_in_process_path_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    (tmp_path / "shop.yaml").write_text(SHOP_DATASET)
    path = write_jsonl(tmp_path / "traces.jsonl", shop_lines(2))
    score = ["score", str(path), "--dataset", str(tmp_path / "shop.yaml"), "--executor", "ray"]
    assert run_cli([*score, option]) == 2
    assert "--executor ray grades trailcheck JSONL or the store" in capsys.readouterr().err
