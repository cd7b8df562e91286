//! Byte-level header codecs for the incast simulator.
//!
//! Each header lives in its own module, in the style of smoltcp's `src/wire/`: named field
//! ranges, a zero-copy [`d3::Packet`] view over any byte buffer, and a validated [`d3::Repr`]
//! with `parse` and `emit`. Nothing here allocates, and nothing depends on the simulation
//! engine, so the same codecs can serve a real network driver.
//!
//! | Module | Header | Source |
//! |--------|--------|--------|
//! | [`d3`] | D3 congestion header, 22 bytes | D3, SIGCOMM 2011, Section 5 "Packet header", Figure 6 |
//! | [`pdq`] | PDQ scheduling header, 20 bytes | PDQ, SIGCOMM 2012, Section 3.1 (field widths incast's own) |
//!
//! The main types are re-exported with the protocol as a prefix, as smoltcp does
//! (`Ipv4Packet`, `Ipv4Repr`), so that later headers can sit beside them.

pub mod d3;
pub mod pdq;

pub use d3::{
    decode_rate as d3_decode_rate, encode_grant as d3_encode_grant,
    encode_request as d3_encode_request, scale_for as d3_scale_for,
    Error as D3Error, Packet as D3Packet, Repr as D3Repr, HEADER_LEN as D3_HEADER_LEN,
    VECTOR_LEN as D3_VECTOR_LEN,
};
pub use pdq::{
    decode_rate as pdq_decode_rate, encode_rate as pdq_encode_rate, Error as PdqError,
    Packet as PdqPacket, Repr as PdqRepr, HEADER_LEN as PDQ_HEADER_LEN,
};
