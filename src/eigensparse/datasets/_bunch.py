"""The container every loader returns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Bunch:
    """A dataset: ``data`` (samples × features, or a covariance), ``feature_names`` and extras.

    ``sample_names`` names the rows when the source does (senators, dates); ``filenames``
    maps each file name of a downloaded data set to its local path.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.datasets import Bunch
    >>> b = Bunch(np.eye(2), ["x", "y"], "a toy data set")
    >>> b.data.shape, b.feature_names, b.target is None
    ((2, 2), ['x', 'y'], True)
    """

    data: object
    feature_names: list
    description: str
    target: np.ndarray | None = None
    target_names: list | None = None
    n_samples: int | None = None
    sample_names: list | None = None
    filenames: dict | None = None
