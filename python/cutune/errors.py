"""cutune's exceptions, one class per kind of trouble, each also the built-in class docs/python.md
promises, so that `except ValueError` keeps working:

- CutuneError: the base of all of them.
- ArgumentError (ValueError, TypeError): an argument of the wrong type or value, named with what
  is expected (`budget="7"`), before any C++ runs.
- SpecError (ValueError): the spec file, family or problem is wrong: an unknown family, a
  malformed spec (file, line and column), a problem the space cannot run, a missing entry.
- TuneError (RuntimeError): the machine cannot do it: no worker, no GPU, no compiler, a store it
  cannot open.

The C++ side raises ValueError (std::invalid_argument) and RuntimeError; `translated()` turns them
into these classes with the same message, and a TypeError of the binding (which shows a C++
signature) into an ArgumentError naming the call.
"""
from contextlib import contextmanager

__all__ = ["CutuneError", "ArgumentError", "SpecError", "TuneError"]


class CutuneError(Exception):
    """Any error cutune raises on purpose."""


class ArgumentError(CutuneError, ValueError, TypeError):
    """An argument of the wrong type or value; the message names it and what is expected."""


class SpecError(CutuneError, ValueError):
    """The spec file, family or problem is wrong (the message names the file and the place)."""


class TuneError(CutuneError, RuntimeError):
    """The machine cannot do what was asked (no worker, GPU, compiler or store)."""


@contextmanager
def translated(call: str):
    """Runs the body with the C++ side's exceptions turned into cutune's classes."""
    try:
        yield
    except CutuneError:
        raise
    except TypeError as error:
        raise ArgumentError(f"{call}: an argument of the wrong type ({error.__class__.__name__}: "
                            f"{str(error).splitlines()[0]})") from None
    except ValueError as error:
        raise SpecError(str(error)) from error
    except RuntimeError as error:
        raise TuneError(str(error)) from error
