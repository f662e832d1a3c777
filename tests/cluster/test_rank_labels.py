"""Which rank is which: labels told apart, traces named by their file, the source line."""

from __future__ import annotations

from mfu_desktop.core.cluster.rank_labels import distinct_tails, file_stem, rank_format, rank_labels, relative_place


def doc(rank: int, path: str, origin: str = "profiler_info rank_id", reader: str = "ascend",
        source: str = "kernels from kernel_details.csv", capture: str = "Level1, PipeUtilization") -> dict:
    return {"rank": rank, "path": path, "rank_origin": origin, "format": reader, "kernel_source": source,
            "capture": capture}


def test_six_rank_zeros_from_six_folders_are_told_apart():
    docs = [doc(0, f"/data/runs/job_{c}/rank0_ascend_pt") for c in "abcdef"]
    labels = rank_labels(docs, ["/data/runs"])
    assert [n.label for n in labels] == [f"rank 0 · job_{c}/rank0_ascend_pt" for c in "abcdef"]
    assert [n.axis for n in labels] == [f"0 · job_{c}" for c in "abcdef"]
    assert labels[0].source == "runs/job_a/rank0_ascend_pt · text · Level1"
    assert labels[0].where == "runs/job_a/rank0_ascend_pt"


def test_unique_ranks_keep_the_short_label():
    docs = [doc(r, f"/d/node0_{r}_ascend_pt") for r in range(3)]
    assert [n.label for n in rank_labels(docs, ["/d"])] == ["rank 0", "rank 1", "rank 2"]
    assert [n.axis for n in rank_labels(docs, ["/d"])] == ["0", "1", "2"]


def test_traces_without_an_id_are_named_by_their_file():
    docs = [doc(-1, "/t/h100/bert.pt.trace.json.gz", "unknown", "kineto", "kernels from bert.pt.trace.json.gz", ""),
            doc(-2, "/t/mi300/bert.pt.trace.json.gz", "unknown", "kineto", "kernels from bert", ""),
            doc(-3, "/t/resnet.json", "unknown", "kineto", "kernels from resnet.json", "")]
    labels = rank_labels(docs, ["/t"])
    assert [n.label for n in labels] == ["bert · h100", "bert · mi300", "resnet"]
    assert labels[2].source == "t/resnet.json · trace"
    assert [n.axis for n in labels] == ["bert · h100", "bert · mi300", "resnet"]


def test_the_same_folder_opened_twice_is_numbered():
    docs = [doc(3, "/d/rank3"), doc(3, "/d/rank3")]
    assert [n.label for n in rank_labels(docs, ["/d"])] == ["rank 3 · d/rank3", "rank 3 · d/rank3 #2"]


def test_format_level_and_places():
    assert rank_format(doc(0, "/x", source="kernels from ascend_pytorch_profiler_0.db")) == "db"
    assert rank_format(doc(0, "/x")) == "text"
    assert rank_format(doc(0, "/x", reader="msprof")) == "msprof"
    assert rank_format(doc(0, "/x", reader="kineto")) == "trace"
    assert relative_place("/a/b/c", ["/a", "/a/b"]) == "b/c"  # the nearest opened root
    assert relative_place("/a/b", ["/a/b"]) == "b"
    assert relative_place("/elsewhere/x", ["/a"]) == "x"
    assert file_stem("worker0.pt.trace.json.gz") == "worker0" and file_stem("x.json") == "x"
    assert distinct_tails(["a/x/r0", "b/x/r0", "c/r1"]) == ["a/x/r0", "b/x/r0", "r1"]


def test_json_ranks_carry_their_label_and_source():
    from mfu_desktop.core.cluster.documents import analysis_json, folder_document
    from tests.cluster.test_documents import rank_doc

    ranks = [{**rank_doc(0, 1000.0, 0.5, 100.0, 1e12), "path": f"/p/job_{c}/rank0", "rank_origin": "x",
              "format": "ascend", "kernel_source": "kernels from kernel_details.csv", "capture": "Level2, x"}
             for c in "ab"]
    out = analysis_json(folder_document(["/p"], ranks, [], [], [], top_n=3))
    assert [(r["label"], r["source"]) for r in out["ranks"]] == [
        ("rank 0 · job_a/rank0", "p/job_a/rank0 · text · Level2"),
        ("rank 0 · job_b/rank0", "p/job_b/rank0 · text · Level2")]


def test_exports_name_duplicate_ranks_apart(tmp_path):
    """Two folders with a rank 0 each: the kernel, cluster and summary exports tell them apart."""
    import pandas as pd

    from mfu_desktop.core.analysis.options import AnalysisOptions
    from mfu_desktop.core.pipeline.analyze import analyze_paths
    from mfu_desktop.core.report.analysis_export import export_analysis
    from tests.helpers import kernel_row, make_rank

    row = kernel_row("mm", "MatMulV2", "AI_CORE", "1767225600000001.500", 10.0, "128,256;256,512",
                     "DT_BF16;DT_BF16", "128,512", "DT_BF16")
    for job in ("job_a", "job_b"):
        make_rank(tmp_path / "runs" / job, "rank0_ascend_pt", 0, [row])
    result = analyze_paths([tmp_path / "runs"], AnalysisOptions(chip="910B2"), use_cache=False)
    export_analysis(result, tmp_path / "out", formats=("csv",))
    kernels = pd.read_csv(tmp_path / "out" / "kernels.csv", encoding="utf-8-sig")
    assert sorted(kernels["rank_label"].unique()) == ["rank 0 · job_a/rank0_ascend_pt",
                                                      "rank 0 · job_b/rank0_ascend_pt"]
    cluster = pd.read_csv(tmp_path / "out" / "cluster.csv", encoding="utf-8-sig")
    assert sorted(cluster["label"]) == sorted(kernels["rank_label"].unique())
    assert sorted(cluster["source"]) == ["runs/job_a/rank0_ascend_pt · text · Level1",
                                     "runs/job_b/rank0_ascend_pt · text · Level1"]
