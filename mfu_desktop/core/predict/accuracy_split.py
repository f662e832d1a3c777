"""The validation corpus's train/held-out split: by model, by chip, and the benchmark rows held out whole.

Stated before any parameter was fitted (validation.md: "a calibration fitted on a row is not
evidence on that row"):

* a **measurement** (one operator on one chip) is a *training* measurement unless its workload's
  model is held out, its chip is held out, or its dataset is evaluation-only;
* a **pair** (source → target) is *held out* when its target's measurement is not a training
  measurement — so no held-out answer ever influenced a fitted parameter. A pair whose target was
  trained on is a training pair and never reported as evidence.

Held-out chips are never fitted at all: their pairs measure the model on a chip it has no
parameters for, as most of the catalog is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Models held out, and why each was chosen (one per dataset; decided before fitting).
HELD_OUT_MODELS = {
    "internlm-20b": "vidur: the middle of its three LLMs in size (Llama-2-7B and phi-2 train)",
    "opt_13": "NeuSight: OPT-1.3B, measured on 10 of the 11 GPUs (BERT-large, GPT-2 large, GPT-3 XL/2.7B train)",
    "gaunernst_bert-small-uncased": "TraceLens: the smaller workload; the ViT (convolution, every kernel "
                                    "category, mid-size GEMMs) trains",
}
#: Chips held out: never fitted, every pair into them is held out.
HELD_OUT_CHIPS = {
    "NVIDIA A100 PCIe 40GB": "an Ampere SKU (A100 PCIe 80GB and SXM 80GB train)",
    "AMD MI210": "a CDNA 2 part (the MI250 GCD trains)",
    "NVIDIA T4": "Turing: no other Turing part in the corpus",
}
#: Datasets used for evaluation only (the Ascend/NVIDIA benchmark throughputs of validation.md §1).
HELD_OUT_DATASETS = {"benchmark": "throughputs of validation.md §1 (FlagPerf, limulidae): evaluation only"}


def training_measurements(corpus: pd.DataFrame) -> np.ndarray:
    """Per corpus row: whether it may be used to fit a parameter."""
    return (~corpus["model"].isin(HELD_OUT_MODELS).to_numpy() & ~corpus["chip"].isin(HELD_OUT_CHIPS).to_numpy()
            & ~corpus["dataset"].isin(HELD_OUT_DATASETS).to_numpy())


def held_out_pairs(pairs: pd.DataFrame) -> np.ndarray:
    """Per pair: whether its target's measurement was kept out of every fit (the rows the report quotes)."""
    return (pairs["model"].isin(HELD_OUT_MODELS).to_numpy() | pairs["target_chip"].isin(HELD_OUT_CHIPS).to_numpy()
            | pairs["dataset"].isin(HELD_OUT_DATASETS).to_numpy())
