"""Checking a call's arguments before any of them reaches C: every array's
type, shape and length against the counts the call passes, indices that
are integers and not negative, names that are one of the valid ones. The
library checks values (a joint index past the joint count, NaN); what it
cannot check is the length of a caller's buffer, so that is checked here:
a short array is a ValueError, never a read past its end.

Errors are skn's own classes (defined here, exported by the package), each
also a ValueError or a TypeError, with the status name the C library would
give and a message that names the argument."""
import numbers

import numpy


class Error(Exception):
    """A failed libskn call or a refused argument: .status (the C status name) and .message."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status, self.message = status, message


class InvalidArgument(Error, ValueError): pass
class InvalidType(Error, TypeError): pass


def bad(message):
    return InvalidArgument("SKN_ERR_INVALID_ARGUMENT", message)


def bad_type(message):
    return InvalidType("SKN_ERR_INVALID_ARGUMENT", message)


def name(value, table, what):
    """table[value] for a name given in any case, '-' or '_' alike; else the valid names."""
    if not isinstance(value, str):
        raise bad_type(f"{what} must be a name (one of {', '.join(table)}), not {type(value).__name__}")
    key = value.strip().lower().replace("_", "-")
    for k, v in table.items():
        if k.replace("_", "-") == key:
            return v
    raise bad(f"{what} {value!r} is not one of {', '.join(table)}")


def count(value, what, minimum=0):
    """A non-negative integer (bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise bad_type(f"{what} must be an integer, not {type(value).__name__}")
    if value < minimum:
        raise bad(f"{what} is {value}; it must be at least {minimum}")
    if value > 0xFFFFFFFF:
        raise bad(f"{what} is {value}; it must fit 32 bits")
    return int(value)


def bytes_count(value, what):
    """A byte count: a non-negative integer below 2^64."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise bad_type(f"{what} must be an integer, not {type(value).__name__}")
    if not 0 <= value < 1 << 64:
        raise bad(f"{what} is {value}; it must be from 0 to 2^64 - 1")
    return int(value)


def real(value, what, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise bad_type(f"{what} must be a number, not {type(value).__name__}")
    if minimum is not None and not value >= minimum:
        raise bad(f"{what} is {value}; it must be at least {minimum}")
    return float(value)


def _array(x, what):
    if x is None:
        raise bad_type(f"{what} is required")
    a = numpy.asarray(x)
    if a.dtype == object or a.dtype.kind not in "biuf":
        raise bad_type(f"{what}: {a.dtype} values are not numbers")
    return a


def rows(x, what, width, count_=None, dtype=numpy.float32, shape_name="n"):
    """x as a C-contiguous (count_, width) array of dtype: (count_, width) rows, or a flat run of
    count_ * width values. count_ None: any number of rows. Returns the array (a view where it is
    one already)."""
    a = _array(x, what)
    if dtype == numpy.float32 and a.dtype.kind == "b":
        raise bad_type(f"{what}: bool values are not coordinates")
    expected = f"({count_ if count_ is not None else shape_name}, {width})" if width > 1 else \
        f"({count_ if count_ is not None else shape_name},)"
    if a.ndim == 2 and a.shape[1] == width:
        n = a.shape[0]
    elif a.ndim == 1 and (width == 1 or a.size % width == 0):
        n = a.size // width
    else:
        raise bad(f"{what} has shape {a.shape}; expected {expected}")
    if count_ is not None and n != count_:
        raise bad(f"{what} has {n} rows of {width}; expected {expected}")
    return numpy.ascontiguousarray(a, dtype=dtype).reshape(n, width) if width > 1 else \
        numpy.ascontiguousarray(a, dtype=dtype).reshape(n)


def indices(x, what, shape=None, lowest=0, dtype=numpy.uint32):
    """An integer array of the given shape (None: as it is), every value >= lowest, as dtype."""
    a = _array(x, what)
    if a.dtype.kind not in "iu":
        raise bad_type(f"{what}: {a.dtype} values are not indices (give an integer array)")
    if shape is not None and a.shape != shape:
        raise bad(f"{what} has shape {a.shape}; expected {shape}")
    if a.size and a.min() < lowest:
        at = numpy.unravel_index(int(numpy.argmin(a)), a.shape)
        raise bad(f"{what}[{', '.join(map(str, at))}] is {a.min()}; indices start at {lowest}")
    if a.size and a.max() > numpy.iinfo(dtype).max:
        raise bad(f"{what}: {a.max()} does not fit {numpy.dtype(dtype).name}")
    return numpy.ascontiguousarray(a, dtype=dtype)


def matrices(x, what, count_=None):
    """Matrices as (n, 4, 4), indexed [matrix, row, column] and acting on column vectors, or
    (n, 16): the same read row by row (what .reshape(n, 16) of the first gives). Returned as the
    C ABI takes them: (n, 16) float32, column-major."""
    a = _array(x, what)
    if a.ndim == 3 and a.shape[1:] == (4, 4):
        m = a
    elif a.ndim == 2 and a.shape[1] == 16:
        m = a.reshape(-1, 4, 4)
    elif a.ndim == 2 and a.shape == (4, 4):
        m = a.reshape(1, 4, 4)
    else:
        raise bad(f"{what} has shape {a.shape}; expected ({count_ if count_ is not None else 'n'}, 4, 4) "
                  f"or ({count_ if count_ is not None else 'n'}, 16)")
    if count_ is not None and len(m) != count_:
        raise bad(f"{what} has {len(m)} matrices; expected {count_}")
    return numpy.ascontiguousarray(m.transpose(0, 2, 1), dtype=numpy.float32).reshape(-1, 16)


def output(x, what, count_, width):
    """(caller's array, the array the library writes): a float32 (count_, width) array whose
    rows' values are contiguous is written in place (a row stride is fine); any other real array
    of that shape gets a float32 copy, copied back after the call."""
    if x is None or x is True:
        a = numpy.empty((count_, width), numpy.float32)
        return a, a
    if not isinstance(x, numpy.ndarray):
        raise bad_type(f"{what} must be a numpy array to write into, not {type(x).__name__}")
    if x.dtype.kind not in "f":
        raise bad_type(f"{what}: {x.dtype} cannot hold coordinates (give a float array)")
    if x.shape != (count_, width):
        raise bad(f"{what} has shape {x.shape}; expected ({count_}, {width})")
    if not x.flags.writeable:
        raise bad(f"{what} is read-only")
    # a row stride past 32 bits (skn_out_attrib.stride's width) is written through a copy too
    direct = x.dtype == numpy.float32 and x.strides[1] == 4 and 4 * width <= x.strides[0] <= 0xFFFFFFFF
    return x, (x if direct else numpy.empty(x.shape, numpy.float32))
