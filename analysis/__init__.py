"""Analysis of simcore's datasets: reads files only, never runs the engine.

* CLIs: :mod:`analysis.aggregate` (run files of a point -> its dataset),
  :mod:`analysis.analyze` (dataset -> analysis), :mod:`analysis.figures` (analyses ->
  campaign figures), :mod:`analysis.papers` (analyses or ``simcore bench`` tables -> a
  paper's comparison figure); they find the code of a model through simcore's registry
  (:mod:`analysis.dispatch`).
* Shared pieces, naming no model: :mod:`analysis.stats` (jackknife),
  :mod:`analysis.estimates` (local slopes, how analyses store estimates),
  :mod:`analysis.plotting` (figure style, sizes, saving with provenance),
  :mod:`analysis.tables` (benchmark tables read by header), :mod:`analysis.literature`
  (published values with their errors).
* One module per model (``analyze`` and ``draw_figures``): :mod:`analysis.kpz`,
  :mod:`analysis.ea3d`, :mod:`analysis.ea3d_pt`, :mod:`analysis.kmc2d`,
  :mod:`analysis.fcc`; a model's larger parts live beside it, named after it
  (:mod:`analysis.kpz_fits`, :mod:`analysis.kpz_figures`, :mod:`analysis.kpz_literature`,
  :mod:`analysis.kpz_betafit`, :mod:`analysis.ea3d_pt_crossings`,
  :mod:`analysis.ea3d_pt_figures`).
* One module per paper (its draw functions): :mod:`analysis.kelling2017`,
  :mod:`analysis.kelling2012`, :mod:`analysis.lulli2015`, :mod:`analysis.darkins2024`,
  and their parts named after them (:mod:`analysis.kelling2017_labels`,
  :mod:`analysis.kelling2017_bench`, :mod:`analysis.kelling2017_corr`,
  :mod:`analysis.lulli2015_tables`, :mod:`analysis.kelling2012_kpz`).
"""
