"""One GGUF sidecar writer for the test data (gate and GistNet sidecars): the metadata given,
then the tensors in their numpy types, float16 as F16 and uint16 as BF16 bits."""
import pathlib
from typing import Callable

import numpy as np
import gguf


def write_sidecar(path: pathlib.Path, arch: str, tensors: dict[str, np.ndarray],
                  add_metadata: Callable[[gguf.GGUFWriter], None]) -> None:
    w = gguf.GGUFWriter(str(path), arch)
    add_metadata(w)
    for name, array in tensors.items():
        if array.dtype == np.float16:
            w.add_tensor(name, array, raw_dtype=gguf.GGMLQuantizationType.F16)
        elif array.dtype == np.uint16:
            w.add_tensor(name, array, raw_dtype=gguf.GGMLQuantizationType.BF16)
        else:
            w.add_tensor(name, array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
