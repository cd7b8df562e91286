//! Tests of senders and receivers together, one topic per module: transfers end to end through
//! the two-endpoint harness (`transfer`), SACK loss recovery (`sack`), ns-3's DCTCP after a
//! timeout (`ns3`), and ns-3's logged ACKs replayed into the `ns3` stack (`ns3_replay`). Each
//! endpoint's own unit tests are in its module.

mod ns3;
mod ns3_replay;
mod sack;
mod transfer;
