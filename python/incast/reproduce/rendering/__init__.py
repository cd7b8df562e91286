"""What a generator of the results docs' tables is made of, whatever the paper: the committed
reports it reads (`committed`), means over seeds with their intervals (`seeds`), markdown cells
and tables (`cells`), the generated blocks a doc holds (`blocks`), and the error a block that
cannot be made raises (`errors`). Each paper's `docs` module builds its renderers from these;
`incast.reproduce.docs` gathers them and rewrites or checks the docs."""
