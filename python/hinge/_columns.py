"""Columns of numbers as the package returns them: a pandas DataFrame when pandas is installed and
frame is None or True, else the dict of NumPy arrays itself (frame=True without pandas raises
ImportError)."""


def as_frame(cols, frame):
    if frame is False:
        return cols
    try:
        import pandas
    except ImportError:
        if frame:
            raise
        return cols
    return pandas.DataFrame(cols)
