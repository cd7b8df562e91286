//! Sans-IO transport logic for the incast simulator.
//!
//! Nothing here reads a clock, owns a socket or knows about the simulation engine: every input is a
//! `handle_*` call with `now` passed in, every output a `poll_*` call. The simulator is one driver
//! of that contract; a real network driver could be another.

pub mod time;
pub mod rate;
pub mod tcp;
pub mod cc;
pub mod d3;
pub mod pdq;
pub mod homa;
pub mod ndp;
