"""From an analysed profile to the predictor's inputs: ranks and the source chip (CLI and window alike)."""

from __future__ import annotations

from mfu_desktop.core.analysis.memory import NOT_IN_SUMMARY, memory_fields
from mfu_desktop.core.chips.catalog import Chip, ChipCatalog
from mfu_desktop.core.cluster.folder import FolderAnalysis
from mfu_desktop.core.predict.options import DEFAULT_SOURCE
from mfu_desktop.core.predict.predictor import RankInput

_TWIN_COLUMNS = ("cube_fp16_tflops", "cube_fp32_tflops", "vector_fp16_tflops", "vector_fp32_tflops",
                 "hbm_bandwidth_gbs", "interconnect_bandwidth")


def rank_inputs(result: FolderAnalysis) -> list[RankInput]:
    """The predictor's inputs from an analysis (kernels, step trace, communication matrix per rank).

    A rank read from a cluster summary brings its prepared inputs instead of kernels.
    """
    from mfu_desktop.core.predict.summary_groups import prepared_rank

    out = []
    for r in result.ranks:
        if r.lite:
            prepared = prepared_rank(r.document)
            if prepared is not None:
                out.append(RankInput(r.rank, None, prepared=prepared, **memory_fields(r)))
        elif r.data.kernels is not None:
            # the annotated kernels carry the roofline bound that splits kernels without pipe times
            kernels = r.kernels if r.kernels is not None and len(r.kernels) == len(r.data.kernels) else r.data.kernels
            out.append(RankInput(r.rank, kernels, r.data.step_trace, r.data.comm, **memory_fields(r)))
    return out


def summary_inputs(documents: list[dict]) -> tuple[list[RankInput], set[str]]:
    """The predictor's inputs from a cluster summary's rank documents, and the confirmed chips they name."""
    from mfu_desktop.core.predict.summary_groups import prepared_rank

    inputs = [RankInput(d["rank"], None, prepared=prepared, memory=d.get("memory"),
                        memory_reason=d.get("memory_reason") if "memory" in d else NOT_IN_SUMMARY)
              for d in documents if (prepared := prepared_rank(d)) is not None]
    detected = {d["chip_id"] for d in documents if d.get("confirmed") and d.get("chip_id")}
    return inputs, detected


def seed_twin(catalog: ChipCatalog, chip: Chip) -> Chip | None:
    """A seed row (one with a cpu coefficient) with exactly the same peaks and bandwidths as ``chip``.

    The seed's step model needs the cpu coefficient, which only the seed rows carry; a detected
    910B2 is the seed's "Huawei Ascend 910B" in every other value.
    """
    if chip.value("cpu") is not None:
        return None
    for other in catalog.chips:
        if other.value("cpu") is not None and other.vendor == chip.vendor and all(
                other.value(c) == chip.value(c) for c in _TWIN_COLUMNS):
            return other
    return None


def choose_source(catalog: ChipCatalog, name: str | None, result: FolderAnalysis | None,
                  detected: set[str] | None = None) -> tuple[Chip, str]:
    """The source chip and why: the user's choice; else the chip the data names; else the seed's default.

    ``detected`` (the confirmed chips' identifiers) replaces ``result`` for a cluster summary.

    Raises:
        UnknownChipError: When ``name`` is not in the catalog.
    """
    if name:
        return catalog.find(name), "chosen (--source)"
    if detected is None:
        detected = {r.chip.chip.identifier for r in (result.ranks if result else [])
                    if r.chip.confirmed and r.chip.chip is not None}
    detected = set(detected)
    if len(detected) == 1:
        chip = catalog.find(detected.pop())
        twin = seed_twin(catalog, chip)
        if twin is not None:
            return twin, f"detected {chip.model}-class, the same values as the seed's {twin.identifier} row"
        return chip, "detected from the profile"
    return catalog.find(DEFAULT_SOURCE), "default (the profile does not name the chip)"
