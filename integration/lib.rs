//! Nothing to use: this package holds the examples and tests that talk to
//! real servers on 127.0.0.1 (`examples/`, `tests/`), so that their heavy
//! dependencies stay out of the `resilient` package's first build.
