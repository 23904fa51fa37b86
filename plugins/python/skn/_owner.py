"""Who owns a libskn handle, and when it may be used and freed.

Every Rig, Pose and Gltf keeps its handle in one _Owner, never in an
attribute of its own, so that nothing — a copy, a pickle, a user's
`obj.__dict__` — can hold the handle a second time: whatever shares the
owner shares one reference-counted thing, and the handle is freed once,
by close() or when the last reference to the owner is gone.

An owner may keep another alive (`parent`: a pose its rig, as C requires:
a rig outlives its poses), and counts the owners that keep it alive
(`children`): a rig with live poses refuses close().

ctypes releases the GIL for every call, so threads really do call libskn
at once. A call holds its owner for its length (enter/leave); close()
waits for the calls in flight and refuses new ones. A shared owner (a rig,
a document: immutable in C, used by any number of threads) admits callers
together; an exclusive one (a pose: one thread at a time in C) admits one
at a time, so that misuse from two threads is serialised — slow, never
torn."""
import threading

from ._args import bad


class _Owner:
    __slots__ = ("handle", "what", "_free", "_parent", "children", "_users", "_cond", "_exclusive", "_turn")

    def __init__(self, handle, free, what, parent=None, exclusive=False):
        self.handle, self.what, self._free = handle, what, free
        self._parent, self.children, self._users = parent, 0, 0
        self._cond = threading.Condition(threading.Lock())
        self._exclusive = exclusive
        self._turn = threading.Lock() if exclusive else None
        if parent is not None:
            with parent._cond:
                parent.children += 1

    def enter(self):
        """The handle, held until leave(): close() waits for it. SKN_ERR_INVALID_ARGUMENT once closed."""
        if self._exclusive:
            self._turn.acquire()
        with self._cond:
            if not self.handle:
                if self._exclusive:
                    self._turn.release()
                raise bad(f"this skn.{self.what} is closed")
            self._users += 1
            return self.handle

    def leave(self):
        with self._cond:
            self._users -= 1
            if not self._users:
                self._cond.notify_all()
        if self._exclusive:
            self._turn.release()

    def close(self, dependents="poses"):
        """Frees the handle now: refused while owners it keeps alive live; waits for calls in flight.
        False when it was closed already."""
        with self._cond:
            if not self.handle:
                return False
            if self.children:
                raise bad(f"{self.what.lower()}: {self.children} {dependents} of it are alive; close them first")
            self._cond.wait_for(lambda: not self._users)
            handle, self.handle = self.handle, None
        self._release(handle)
        return True

    def _release(self, handle):
        self._free(handle)
        parent, self._parent = self._parent, None
        if parent is not None:
            with parent._cond:
                parent.children -= 1

    def __del__(self):
        # no one refers to it: no call is in flight and nothing it keeps alive remains. At
        # interpreter exit the library's functions may be gone first; then the process frees all.
        handle = getattr(self, "handle", None)
        if handle:
            self.handle = None
            try:
                self._release(handle)
            except (AttributeError, TypeError):  # pragma: no cover (shutdown)
                pass


def refuse_copy(cls):
    """Makes a class's instances refuse copy, deepcopy and pickle: each owns a libskn object, which a
    second Python object must share by reference (skn objects are handles, not values)."""
    def refuse(self, *_):
        raise TypeError(f"a skn.{cls.__name__} cannot be copied or pickled: it owns a libskn object; "
                        f"share the object itself")
    cls.__copy__ = cls.__deepcopy__ = cls.__reduce__ = cls.__reduce_ex__ = refuse
    return cls
