"""luza as a product: match analysis, the live table and its scoreboard, match
records (SQLite), batch analysis (local cores or a Dask cluster).

These modules put the stages together; none of the stages imports from here.
"""
