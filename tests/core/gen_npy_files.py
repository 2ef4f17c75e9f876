"""Writes the NumPy-made .npy/.npz files of tests/core/npy_test.cc, tests/nn/npz_test.cc and
tests/cli/npy_cli_test.cc into OUT (the test build runs `.venv/bin/python
tests/core/gen_npy_files.py OUT`; the files are generated, never committed). Each array
is np.arange-based, so the tests state the logical values by hand: element k of the row-major
array is k (or the value given in the comment). NumPy 2.4, numpy.lib.format."""
import os
import numpy as np
import ml_dtypes

import sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def save(name, a):
    np.save(os.path.join(out, name), a)
    print(name, a.dtype.str, "fortran" if np.isfortran(a) else "C", a.shape)

# Big-endian: [[0, 1.5, 3], [4.5, 6, 7.5]] (k * 1.5) and [0, -1, 2, -3, ..., 300, -32768].
save("be_f4.npy", (np.arange(6) * 1.5).astype(">f4").reshape(2, 3))
save("be_i2.npy", np.array([0, -1, 2, -3, 300, -32768], dtype=">i2"))
# Big-endian complex64: k + (10 + k)i for k = 0..2; big-endian float64 [0.25, -2, 1e300].
save("be_c8.npy", (np.arange(3) + 1j * (10 + np.arange(3))).astype(">c8"))
save("be_f8.npy", np.array([0.25, -2.0, 1e300], dtype=">f8"))
# Big-endian bfloat16 (ml_dtypes writes '>V2'): [1, -2, 0.5].
save("be_bf16.npy", np.array([1, -2, 0.5], dtype=ml_dtypes.bfloat16).astype(
    np.dtype(ml_dtypes.bfloat16).newbyteorder(">")))
# Fortran order: the logical row-major arrays arange(6).reshape(2, 3) and arange(24).reshape(2, 3, 4).
save("fortran_f4.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
save("fortran_i4_3d.npy", np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4)))
# Both: big-endian and Fortran order, arange(12).reshape(3, 4) as int64.
save("fortran_be_i8.npy", np.asfortranarray(np.arange(12, dtype=">i8").reshape(3, 4)))
# An .npz (np.savez, stored) with a big-endian member "w" = arange(4) as >f4 and a Fortran
# member "m" = arange(6).reshape(2, 3) as <i2: read by nn::load_npz through parse_npy.
np.savez(os.path.join(out, "mixed.npz"), w=np.arange(4, dtype=">f4"),
         m=np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3)))
print("mixed.npz")

# The same kind of archive written to a stream that cannot seek (a pipe): Python's zipfile then
# gives every member a data descriptor (flag bit 3; the sizes and CRC after the data, zeros in the
# local header), as Java's ZipOutputStream does. Members w = arange(4) as <f4 and
# m = arange(6).reshape(2, 3) as <i8; stored (np.savez) and deflated (np.savez_compressed).
import io
import zipfile


class Unseekable(io.RawIOBase):
    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.data += b
        return len(b)

    def seekable(self):
        return False

    def tell(self):
        raise OSError("a pipe cannot tell")


for name, save_npz in (("streamed.npz", np.savez), ("streamed_deflated.npz", np.savez_compressed)):
    stream = Unseekable()
    save_npz(stream, w=np.arange(4, dtype="<f4"), m=np.arange(6, dtype="<i8").reshape(2, 3))
    data = bytes(stream.data)
    members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    assert members and all(m.flag_bits & 0x8 for m in members), "no data descriptors"
    loaded = np.load(io.BytesIO(data))
    assert loaded["w"].tolist() == [0, 1, 2, 3] and loaded["m"].tolist() == [[0, 1, 2], [3, 4, 5]]
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    print(name, "data descriptors:", [m.filename for m in members])
