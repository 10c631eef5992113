//! What `#[resilient]` accepts: each module is a use of the attribute that
//! must compile without a warning (most deny them) and whose test runs a
//! call of it. They are one test binary, built with the workspace, so that
//! trybuild only checks the rejected cases (`tests/ui/fail`), all in one
//! `cargo check`.

mod async_fn;
mod debug_only_error;
mod every_option;
mod fallback_chain;
mod fallback_chain_mut_self;
mod free_fn;
mod generic_fn;
mod hedge;
mod hooks_from_parameters;
mod instrument_above;
mod io_result_alias;
mod methods;
mod no_shadowing;
mod report_hook_in_trait_impl;
mod result_aliases;
mod return_and_question_mark;
