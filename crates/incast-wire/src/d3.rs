//! The D3 congestion header: rate request and rate feedback, 22 bytes (D3, "Better Never than
//! Late", SIGCOMM 2011, Section 5 "Packet header", Figure 6).
//!
//! A D3 sender asks the routers on its path for a rate once per RTT by piggybacking this header
//! on a data packet (or sending it alone, "header-only"). Each router allocates a rate and writes
//! it into the header; the receiver copies the allocations into its reply, and the sender sends at
//! the minimum of them for the next RTT (Section 4.1).
//!
//! # Layout
//!
//! Figure 6 is a drawing that does not survive in the text of the paper, so its exact byte layout
//! is not recoverable. The prose lists the fields and their sizes, and states the total ("an
//! overhead of 22 bytes for every packet carrying rate requests"). This codec lays the fields out
//! in the order the prose names them, scale factor last:
//!
//! ```text
//!  0        1        2 ........ 7   8        9 ........ 14   15 ....... 20   21
//! +--------+--------+-------------+--------+-------------+--------------+--------+
//! | r(t+1) | index  | [a(t+1)] x6 |  r(t)  |  [a(t)] x6  | feedback x6  | scale  |
//! +--------+--------+-------------+--------+-------------+--------------+--------+
//! ```
//!
//! Every field is one byte or a vector of single bytes, so there is no byte order to choose.
//!
//! | Field | Bytes | Meaning |
//! |-------|-------|---------|
//! | [`desired_rate`](Packet::desired_rate) r(t+1) | 0 | rate the sender asks for in the next RTT; 0 for flows without a deadline |
//! | [`index`](Packet::index) | 1 | how many routers have written into the allocation vector so far, `0..=6` |
//! | [`alloc`](Packet::alloc) [a(t+1)] | 2..8 | rates allocated for the next RTT, one per router in path order |
//! | [`prev_desired_rate`](Packet::prev_desired_rate) r(t) | 8 | the desired rate of the current RTT, so routers can update their demand counter |
//! | [`prev_alloc`](Packet::prev_alloc) [a(t)] | 9..15 | the rates allocated for the current RTT, so each router can take its allocation back |
//! | [`feedback`](Packet::feedback) | 15..21 | rates the routers of the reverse path allocated to traffic from the destination back to the source |
//! | [`scale`](Packet::scale) | 21 | multiplier applied to every rate byte above, `1..=255` |
//!
//! The router at hop `k` of a path (counting from 0) reads its previous allocation from
//! `prev_alloc[index]`, writes its new one into `alloc[index]` and increments `index`, so one
//! index serves both vectors (Snippet 1, Section 4.3). Six entries allow a network diameter of
//! at most six routers; the paper notes that three-tier datacenter trees have at most five.
//! The "new flow" flag of Snippet 1 is not part of these 22 bytes: it rides on the transport's
//! SYN flag.
//!
//! # Rates and the scale factor
//!
//! "All rates are in Bytes/µs and hence, can be encoded in one byte; 1Gbps equates to a value of
//! 125. The scale factor byte can be used to scale this" (Section 5). The paper does not say how;
//! this codec defines it as multiplication:
//!
//! ```text
//! rate in bytes/µs = value × scale,   value in 0..=255, scale in 1..=255
//! ```
//!
//! At scale 1 the granularity is 1 B/µs (8 Mbps) and 255 means 2.04 Gbps; at scale 50 the
//! granularity is 400 Mbps and the ceiling 102 Gbps. A scale of 0 would make every rate zero and
//! is rejected by [`Repr::parse`]. A sender picks the smallest scale whose range covers the fastest
//! rate it needs ([`scale_for`]), and the scale applies to every rate byte of the header.
//!
//! Requests and grants round in opposite directions: a desired rate is rounded up
//! ([`encode_request`]: a need is never understated), an allocation is truncated
//! ([`encode_grant`]: a router never hands out capacity it does not have, as its integer
//! bytes/µs arithmetic would). An allocation byte of 0, [`BASE_GRANT`], is the base rate of
//! Section 4.2: the flow sends only a header-only request in its next RTT. Routers count the base
//! rate it stands for exactly, and take exactly that back when a host returns a 0 in [a(t)].
//!
//! A flow should keep one scale for its lifetime, and a receiver should answer with the scale of
//! the request it answers: routers take back `a(t)` from the header, so the byte a router wrote in
//! one RTT must mean the same rate when the sender echoes it in the next, and a receiver can then
//! copy an allocation vector into its feedback vector verbatim. An endpoint that changes scale
//! must re-encode the echoed bytes ([`decode_rate`] with the old scale, then [`encode_request`]
//! or [`encode_grant`] with the new one).
//!
//! # Example
//!
//! A sender's first request on a 1 Gbps path, and the first router writing its allocation:
//!
//! ```
//! use incast_wire::d3::{decode_rate, encode_grant, encode_request, scale_for, Packet, Repr, HEADER_LEN};
//!
//! let gbps = 125_000_000; // bytes per second
//! let scale = scale_for(gbps);
//! let request = Repr {
//!     desired_rate: encode_request(gbps, scale),
//!     index: 0,
//!     alloc: [0; 6],
//!     prev_desired_rate: 0,
//!     prev_alloc: [0; 6],
//!     feedback: [0; 6],
//!     scale,
//! };
//! let mut bytes = [0u8; HEADER_LEN];
//! request.emit(&mut Packet::new_unchecked(&mut bytes[..]));
//! assert_eq!(bytes[0], 125);
//!
//! // A router: parse, allocate 600 Mbps, write it at the index.
//! let mut packet = Packet::new_checked(&mut bytes[..])?;
//! let hop = usize::from(packet.index());
//! packet.set_alloc(hop, encode_grant(75_000_000, packet.scale()));
//! packet.set_index(packet.index() + 1);
//!
//! let seen = Repr::parse(&Packet::new_checked(&bytes[..])?)?;
//! assert_eq!(decode_rate(seen.alloc[0], seen.scale), 75_000_000);
//! # Ok::<(), incast_wire::d3::Error>(())
//! ```
//!
//! # Panic contract
//!
//! - [`Packet::new_checked`] and [`Packet::check_len`] never panic. After `new_checked` succeeds,
//!   no getter or setter panics, except the vector accessors given an entry `i >= VECTOR_LEN`.
//! - On a [`Packet::new_unchecked`] view of a buffer shorter than [`HEADER_LEN`], getters and
//!   setters may panic (out-of-bounds slice index).
//! - [`Repr::parse`] never panics, on any buffer: it checks the length itself.
//! - [`Repr::emit`] panics if the buffer is shorter than [`HEADER_LEN`].
//! - [`encode_request`], [`encode_grant`] and [`decode_rate`] panic on a scale of 0.

use std::fmt;

/// Length of the D3 congestion header in bytes: "an overhead of 22 bytes for every packet carrying
/// rate requests" (Section 5).
pub const HEADER_LEN: usize = 22;

/// Entries in each per-router vector: "The allocation vectors are 6 bytes long, allowing for a
/// maximum network diameter of 6 routers (or switches)" (Section 5).
pub const VECTOR_LEN: usize = 6;

/// Bytes per second in one rate unit at scale 1: rates are "in Bytes/µs" (Section 5).
pub const UNIT_BYTES_PER_SEC: u64 = 1_000_000;

/// Byte offsets and ranges of the header fields, in wire order.
pub mod field {
    use core::ops::Range;

    /// Desired rate for the next RTT, r(t+1).
    pub const DESIRED_RATE: usize = 0;
    /// Index into the allocation vectors: routers that have written so far.
    pub const INDEX: usize = 1;
    /// Current allocation vector [a(t+1)], one byte per router.
    pub const ALLOC: Range<usize> = 2..8;
    /// Desired rate of the current RTT, r(t).
    pub const PREV_DESIRED_RATE: usize = 8;
    /// Previous allocation vector [a(t)], one byte per router.
    pub const PREV_ALLOC: Range<usize> = 9..15;
    /// Reverse-direction feedback vector, one byte per router of the reverse path.
    pub const FEEDBACK: Range<usize> = 15..21;
    /// Scale factor applied to every rate byte.
    pub const SCALE: usize = 21;
}

// The ranges above must tile the header exactly.
const _: () = {
    assert!(field::INDEX == field::DESIRED_RATE + 1);
    assert!(field::ALLOC.start == field::INDEX + 1);
    assert!(field::ALLOC.end - field::ALLOC.start == VECTOR_LEN);
    assert!(field::PREV_DESIRED_RATE == field::ALLOC.end);
    assert!(field::PREV_ALLOC.start == field::PREV_DESIRED_RATE + 1);
    assert!(field::PREV_ALLOC.end - field::PREV_ALLOC.start == VECTOR_LEN);
    assert!(field::FEEDBACK.start == field::PREV_ALLOC.end);
    assert!(field::FEEDBACK.end - field::FEEDBACK.start == VECTOR_LEN);
    assert!(field::SCALE == field::FEEDBACK.end);
    assert!(HEADER_LEN == field::SCALE + 1);
};

/// Why a buffer does not hold a valid D3 congestion header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer is shorter than [`HEADER_LEN`].
    Truncated,
    /// The index byte is above [`VECTOR_LEN`]; the value found is carried.
    BadIndex(u8),
    /// The scale factor byte is 0, which would make every rate zero.
    BadScale,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated => {
                write!(f, "D3 header truncated: need {HEADER_LEN} bytes")
            }
            Error::BadIndex(i) => {
                write!(f, "D3 header index {i} is above the vector length {VECTOR_LEN}")
            }
            Error::BadScale => write!(f, "D3 header scale factor is 0"),
        }
    }
}

impl std::error::Error for Error {}

/// A zero-copy view of a D3 congestion header at the start of a byte buffer.
///
/// Bytes after [`HEADER_LEN`] are ignored (they are the rest of the packet). The view checks
/// nothing about field values; use [`Repr::parse`] for that. See the module's panic contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length.
    ///
    /// Getters and setters panic if the buffer is shorter than [`HEADER_LEN`].
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer, failing with [`Error::Truncated`] if it is shorter than [`HEADER_LEN`].
    ///
    /// On success no getter or setter panics (given vector entries below [`VECTOR_LEN`]).
    pub fn new_checked(buffer: T) -> Result<Packet<T>, Error> {
        let packet = Packet::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the buffer holds a whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Desired rate for the next RTT, r(t+1), in units of `scale` bytes/µs.
    pub fn desired_rate(&self) -> u8 {
        self.buffer.as_ref()[field::DESIRED_RATE]
    }

    /// Number of routers that have written into the allocation vector; not range-checked here.
    pub fn index(&self) -> u8 {
        self.buffer.as_ref()[field::INDEX]
    }

    /// Entry `i` of the current allocation vector [a(t+1)].
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn alloc(&self, i: usize) -> u8 {
        self.buffer.as_ref()[field::ALLOC][i]
    }

    /// Desired rate of the current RTT, r(t), in units of `scale` bytes/µs.
    pub fn prev_desired_rate(&self) -> u8 {
        self.buffer.as_ref()[field::PREV_DESIRED_RATE]
    }

    /// Entry `i` of the previous allocation vector [a(t)].
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn prev_alloc(&self, i: usize) -> u8 {
        self.buffer.as_ref()[field::PREV_ALLOC][i]
    }

    /// Entry `i` of the reverse-direction feedback vector.
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn feedback(&self, i: usize) -> u8 {
        self.buffer.as_ref()[field::FEEDBACK][i]
    }

    /// Scale factor; a valid header has `scale >= 1`.
    pub fn scale(&self) -> u8 {
        self.buffer.as_ref()[field::SCALE]
    }

    fn vector(&self, range: core::ops::Range<usize>) -> [u8; VECTOR_LEN] {
        let mut out = [0; VECTOR_LEN];
        out.copy_from_slice(&self.buffer.as_ref()[range]);
        out
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the desired rate for the next RTT, r(t+1).
    pub fn set_desired_rate(&mut self, value: u8) {
        self.buffer.as_mut()[field::DESIRED_RATE] = value;
    }

    /// Sets the index byte; any value is written, [`Repr::parse`] rejects those above 6.
    pub fn set_index(&mut self, value: u8) {
        self.buffer.as_mut()[field::INDEX] = value;
    }

    /// Sets entry `i` of the current allocation vector [a(t+1)].
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn set_alloc(&mut self, i: usize, value: u8) {
        self.buffer.as_mut()[field::ALLOC][i] = value;
    }

    /// Sets the desired rate of the current RTT, r(t).
    pub fn set_prev_desired_rate(&mut self, value: u8) {
        self.buffer.as_mut()[field::PREV_DESIRED_RATE] = value;
    }

    /// Sets entry `i` of the previous allocation vector [a(t)].
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn set_prev_alloc(&mut self, i: usize, value: u8) {
        self.buffer.as_mut()[field::PREV_ALLOC][i] = value;
    }

    /// Sets entry `i` of the reverse-direction feedback vector.
    ///
    /// # Panics
    /// If `i >= VECTOR_LEN`.
    pub fn set_feedback(&mut self, i: usize, value: u8) {
        self.buffer.as_mut()[field::FEEDBACK][i] = value;
    }

    /// Sets the scale factor; any value is written, [`Repr::parse`] rejects 0.
    pub fn set_scale(&mut self, value: u8) {
        self.buffer.as_mut()[field::SCALE] = value;
    }

    fn set_vector(&mut self, range: core::ops::Range<usize>, values: &[u8; VECTOR_LEN]) {
        self.buffer.as_mut()[range].copy_from_slice(values);
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// A validated D3 congestion header, holding the raw wire values.
///
/// Rates are bytes in units of `scale` bytes/µs; convert with [`decode_rate`],
/// [`encode_request`] and [`encode_grant`]; an allocation byte of 0 is the base-rate grant. Vector entries at positions `>= index` carry no allocation yet, but are kept
/// verbatim so that parse and emit are exact inverses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Desired rate for the next RTT, r(t+1); 0 for a flow without a deadline.
    pub desired_rate: u8,
    /// Routers that have written into `alloc` so far, `0..=VECTOR_LEN`.
    pub index: u8,
    /// Current allocation vector [a(t+1)], in path order.
    pub alloc: [u8; VECTOR_LEN],
    /// Desired rate of the current RTT, r(t).
    pub prev_desired_rate: u8,
    /// Previous allocation vector [a(t)], which each router takes back.
    pub prev_alloc: [u8; VECTOR_LEN],
    /// Rates the reverse path allocated to traffic from the destination back to the source.
    pub feedback: [u8; VECTOR_LEN],
    /// Scale factor for every rate byte, `1..=255`.
    pub scale: u8,
}

impl Repr {
    /// Parses and validates a header.
    ///
    /// Fails with [`Error::Truncated`] if the buffer is shorter than [`HEADER_LEN`] (even on a
    /// [`Packet::new_unchecked`] view, so this never panics), then with [`Error::BadIndex`] if the
    /// index is above [`VECTOR_LEN`], then with [`Error::BadScale`] if the scale is 0.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(packet: &Packet<&T>) -> Result<Repr, Error> {
        packet.check_len()?;
        let repr = Repr {
            desired_rate: packet.desired_rate(),
            index: packet.index(),
            alloc: packet.vector(field::ALLOC),
            prev_desired_rate: packet.prev_desired_rate(),
            prev_alloc: packet.vector(field::PREV_ALLOC),
            feedback: packet.vector(field::FEEDBACK),
            scale: packet.scale(),
        };
        repr.validate()?;
        Ok(repr)
    }

    /// Checks the field values that [`Repr::parse`] checks: `index <= VECTOR_LEN`, `scale >= 1`.
    pub fn validate(&self) -> Result<(), Error> {
        if usize::from(self.index) > VECTOR_LEN {
            return Err(Error::BadIndex(self.index));
        }
        if self.scale == 0 {
            return Err(Error::BadScale);
        }
        Ok(())
    }

    /// Bytes this header occupies on the wire: always [`HEADER_LEN`].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first [`HEADER_LEN`] bytes of the buffer, leaving the rest.
    ///
    /// Values are written as they are: a `Repr` that fails [`Repr::validate`] emits a header
    /// that [`Repr::parse`] rejects.
    ///
    /// # Panics
    /// If the buffer is shorter than [`HEADER_LEN`].
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, packet: &mut Packet<&mut T>) {
        packet.set_desired_rate(self.desired_rate);
        packet.set_index(self.index);
        packet.set_vector(field::ALLOC, &self.alloc);
        packet.set_prev_desired_rate(self.prev_desired_rate);
        packet.set_vector(field::PREV_ALLOC, &self.prev_alloc);
        packet.set_vector(field::FEEDBACK, &self.feedback);
        packet.set_scale(self.scale);
    }
}

/// Encodes a desired rate (r(t+1) or r(t)) as a header byte at `scale`: rounded *up* to whole
/// units of `scale` bytes/µs, saturating at 255.
///
/// A desired rate is what a flow needs to meet its deadline (Section 4.1), so the field never
/// understates it: a positive need below one unit asks for one unit, and 0 stays 0 ("flows
/// without deadlines, where r = 0", Section 4.2).
///
/// # Panics
/// If `scale` is 0.
pub fn encode_request(bytes_per_sec: u64, scale: u8) -> u8 {
    let units = bytes_per_sec.div_ceil(unit_of(scale));
    u8::try_from(units).unwrap_or(u8::MAX)
}

/// Encodes a router's allocation (an entry of [a(t+1)]) as a header byte at `scale`: truncated
/// to whole units of `scale` bytes/µs, as the router's "integer arithmetic for all rate
/// calculations" in bytes/µs (Section 5) computes it, saturating at 255.
///
/// A value of 0 is the **base-rate grant** ([`BASE_GRANT`]): the flow may send only a
/// header-only rate request in its next RTT (Section 4.2: the "base rate that allows them to
/// send a header-only packet per RTT and hence, request rates in the future"). The base rate is
/// far below one unit (a 62-byte request per 300 µs RTT is 0.2 B/µs), so it has no byte value of
/// its own; a router counts the base rate it stands for exactly, and a host that returns a 0 in
/// [a(t)] returns exactly that. Truncation makes a fair share below one unit a pause, never
/// capacity the router does not have.
///
/// # Panics
/// If `scale` is 0.
pub fn encode_grant(bytes_per_sec: u64, scale: u8) -> u8 {
    let units = bytes_per_sec / unit_of(scale);
    u8::try_from(units).unwrap_or(u8::MAX)
}

/// An allocation byte that grants the base rate: a header-only request next RTT (see
/// [`encode_grant`]).
pub const BASE_GRANT: u8 = 0;

/// Bytes per second in one unit at `scale`.
fn unit_of(scale: u8) -> u64 {
    assert!(scale != 0, "D3 scale factor must be at least 1");
    u64::from(scale) * UNIT_BYTES_PER_SEC
}

/// The rate in bytes per second that a header byte `value` stands for at `scale`.
///
/// Exact: `value × scale × 1_000_000`, at most 65_025_000_000 B/s (520.2 Gbps).
///
/// # Panics
/// If `scale` is 0.
pub fn decode_rate(value: u8, scale: u8) -> u64 {
    u64::from(value) * unit_of(scale)
}

/// The smallest scale at which 255 units cover `max_bytes_per_sec`: `255 × scale` bytes/µs
/// `>= max_bytes_per_sec`.
///
/// Returns 1 for rates up to 2.04 Gbps (so 1 Gbps links get the paper's 125), 5 for 10 Gbps,
/// 50 for 100 Gbps, and saturates at 255 for anything above 520.2 Gbps, where rates will then
/// saturate in [`encode_request`] and [`encode_grant`].
pub fn scale_for(max_bytes_per_sec: u64) -> u8 {
    let full_range = u64::from(u8::MAX) * UNIT_BYTES_PER_SEC;
    let scale = max_bytes_per_sec.div_ceil(full_range).max(1);
    u8::try_from(scale).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 1 Gbps in bytes per second.
    const GBPS: u64 = 125_000_000;

    /// A SYN carrying the first rate request of a 1 Gbps deadline flow at scale 1: desired rate
    /// 125 (the paper's "1Gbps equates to a value of 125"), no router has written yet.
    static SYN_REQUEST: [u8; 22] = [
        125, // r(t+1)
        0,   // index
        0, 0, 0, 0, 0, 0, // [a(t+1)]
        0, // r(t)
        0, 0, 0, 0, 0, 0, // [a(t)]
        0, 0, 0, 0, 0, 0, // feedback
        1, // scale
    ];

    fn syn_request_repr() -> Repr {
        Repr {
            desired_rate: 125,
            index: 0,
            alloc: [0; 6],
            prev_desired_rate: 0,
            prev_alloc: [0; 6],
            feedback: [0; 6],
            scale: 1,
        }
    }

    /// A request in its second RTT, seen between the second and third router: two routers have
    /// written 100 and 90, the previous RTT's request and allocations are echoed for return, and
    /// the receiver's earlier reply left reverse-path feedback.
    static MID_PATH: [u8; 22] = [
        110, // r(t+1)
        2,   // index
        100, 90, 0, 0, 0, 0, // [a(t+1)]
        125, // r(t)
        120, 95, 95, 0, 0, 0, // [a(t)]
        30, 30, 25, 0, 0, 0, // feedback
        1, // scale
    ];

    fn mid_path_repr() -> Repr {
        Repr {
            desired_rate: 110,
            index: 2,
            alloc: [100, 90, 0, 0, 0, 0],
            prev_desired_rate: 125,
            prev_alloc: [120, 95, 95, 0, 0, 0],
            feedback: [30, 30, 25, 0, 0, 0],
            scale: 1,
        }
    }

    /// A 100 Gbps path at scale 50 after six routers wrote, the largest diameter the header allows.
    static FULL_PATH_SCALE_50: [u8; 22] = [
        250, 6, 200, 201, 202, 203, 204, 205, 0, 0, 0, 0, 0, 0, 0, 9, 8, 7, 6, 5, 4, 50,
    ];

    fn full_path_repr() -> Repr {
        Repr {
            desired_rate: 250,
            index: 6,
            alloc: [200, 201, 202, 203, 204, 205],
            prev_desired_rate: 0,
            prev_alloc: [0; 6],
            feedback: [9, 8, 7, 6, 5, 4],
            scale: 50,
        }
    }

    fn roundtrip_literal(bytes: &[u8; 22], expected: Repr) {
        let packet = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(Repr::parse(&packet), Ok(expected));
        let mut out = [0xAA; 22];
        expected.emit(&mut Packet::new_unchecked(&mut out[..]));
        assert_eq!(&out, bytes);
    }

    #[test]
    fn syn_request_roundtrip() {
        roundtrip_literal(&SYN_REQUEST, syn_request_repr());
        assert_eq!(decode_rate(SYN_REQUEST[0], 1), GBPS);
    }

    #[test]
    fn mid_path_roundtrip() {
        roundtrip_literal(&MID_PATH, mid_path_repr());
    }

    #[test]
    fn full_path_scale_50_roundtrip() {
        roundtrip_literal(&FULL_PATH_SCALE_50, full_path_repr());
        // 250 units of 50 B/µs is 100 Gbps.
        assert_eq!(decode_rate(FULL_PATH_SCALE_50[0], 50), 100 * GBPS);
    }

    #[test]
    fn getters_read_documented_offsets() {
        let bytes: [u8; 22] = core::array::from_fn(|i| i as u8 + 1);
        let p = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(p.desired_rate(), 1);
        assert_eq!(p.index(), 2);
        assert_eq!((0..6).map(|i| p.alloc(i)).collect::<Vec<_>>(), [3, 4, 5, 6, 7, 8]);
        assert_eq!(p.prev_desired_rate(), 9);
        assert_eq!((0..6).map(|i| p.prev_alloc(i)).collect::<Vec<_>>(), [10, 11, 12, 13, 14, 15]);
        assert_eq!((0..6).map(|i| p.feedback(i)).collect::<Vec<_>>(), [16, 17, 18, 19, 20, 21]);
        assert_eq!(p.scale(), 22);
    }

    #[test]
    fn setters_write_documented_offsets() {
        let mut bytes = [0u8; 22];
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        p.set_desired_rate(1);
        p.set_index(2);
        for i in 0..6 {
            p.set_alloc(i, 3 + i as u8);
            p.set_prev_alloc(i, 10 + i as u8);
            p.set_feedback(i, 16 + i as u8);
        }
        p.set_prev_desired_rate(9);
        p.set_scale(22);
        let expected: [u8; 22] = core::array::from_fn(|i| i as u8 + 1);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn router_writes_allocation_in_place() {
        // The third router takes back its a(t) = 95 and writes a(t+1) = 80 at the index.
        let mut bytes = MID_PATH;
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        let hop = usize::from(p.index());
        assert_eq!(p.prev_alloc(hop), 95);
        p.set_alloc(hop, 80);
        p.set_index(p.index() + 1);
        assert_eq!(
            bytes,
            [110, 3, 100, 90, 80, 0, 0, 0, 125, 120, 95, 95, 0, 0, 0, 30, 30, 25, 0, 0, 0, 1]
        );
    }

    #[test]
    fn trailing_payload_is_ignored_and_untouched() {
        let mut bytes = [0x55u8; 30];
        bytes[..22].copy_from_slice(&MID_PATH);
        let p = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(Repr::parse(&p), Ok(mid_path_repr()));

        let mut out = [0x55u8; 30];
        mid_path_repr().emit(&mut Packet::new_unchecked(&mut out[..]));
        assert_eq!(out, bytes);
        assert_eq!(mid_path_repr().buffer_len(), HEADER_LEN);
    }

    #[test]
    fn truncated_buffers_are_rejected() {
        for len in [0, 1, 21] {
            let bytes = &SYN_REQUEST[..len];
            assert_eq!(Packet::new_checked(bytes), Err(Error::Truncated));
            // `parse` checks the length itself, so an unchecked view is safe to parse.
            assert_eq!(Repr::parse(&Packet::new_unchecked(bytes)), Err(Error::Truncated));
        }
    }

    #[test]
    fn index_above_vector_len_is_rejected() {
        let mut bytes = FULL_PATH_SCALE_50;
        bytes[1] = 7;
        assert_eq!(Repr::parse(&Packet::new_unchecked(&bytes[..])), Err(Error::BadIndex(7)));
        bytes[1] = 255;
        assert_eq!(Repr::parse(&Packet::new_unchecked(&bytes[..])), Err(Error::BadIndex(255)));
    }

    #[test]
    fn zero_scale_is_rejected() {
        let mut bytes = SYN_REQUEST;
        bytes[21] = 0;
        assert_eq!(Repr::parse(&Packet::new_unchecked(&bytes[..])), Err(Error::BadScale));
    }

    #[test]
    fn errors_are_checked_in_order() {
        // Both index and scale bad: the index is reported first.
        let mut bytes = SYN_REQUEST;
        bytes[1] = 9;
        bytes[21] = 0;
        assert_eq!(Repr::parse(&Packet::new_unchecked(&bytes[..])), Err(Error::BadIndex(9)));
    }

    #[test]
    fn errors_display() {
        assert_eq!(Error::Truncated.to_string(), "D3 header truncated: need 22 bytes");
        assert_eq!(
            Error::BadIndex(7).to_string(),
            "D3 header index 7 is above the vector length 6"
        );
        assert_eq!(Error::BadScale.to_string(), "D3 header scale factor is 0");
        let boxed: Box<dyn std::error::Error> = Box::new(Error::BadScale);
        assert!(boxed.source().is_none());
    }

    #[test]
    fn into_inner_and_as_ref_return_the_buffer() {
        let p = Packet::new_unchecked(&SYN_REQUEST[..]);
        assert_eq!(p.as_ref(), &SYN_REQUEST[..]);
        assert_eq!(p.into_inner(), &SYN_REQUEST[..]);
    }

    #[test]
    #[should_panic]
    fn getter_on_short_unchecked_buffer_panics() {
        let _ = Packet::new_unchecked(&SYN_REQUEST[..21]).scale();
    }

    #[test]
    #[should_panic]
    fn vector_entry_past_end_panics() {
        let _ = Packet::new_checked(&SYN_REQUEST[..]).unwrap().alloc(VECTOR_LEN);
    }

    #[test]
    #[should_panic]
    fn emit_into_short_buffer_panics() {
        let mut out = [0u8; 21];
        syn_request_repr().emit(&mut Packet::new_unchecked(&mut out[..]));
    }

    #[test]
    fn encode_request_rounds_up_and_saturates() {
        assert_eq!(encode_request(GBPS, 1), 125);
        assert_eq!(encode_request(0, 1), 0);
        assert_eq!(encode_request(0, 255), 0);
        // A positive need below one unit asks for one unit.
        assert_eq!(encode_request(1, 1), 1);
        assert_eq!(encode_request(150_000, 1), 1);
        assert_eq!(encode_request(1, 255), 1);
        assert_eq!(encode_request(1_000_000, 1), 1);
        assert_eq!(encode_request(1_000_001, 1), 2);
        assert_eq!(encode_request(GBPS, 10), 13); // 12.5 units
        assert_eq!(encode_request(255 * UNIT_BYTES_PER_SEC, 1), 255);
        assert_eq!(encode_request(10 * GBPS, 1), 255);
        assert_eq!(encode_request(u64::MAX, 1), 255);
        assert_eq!(encode_request(u64::MAX, 255), 255);
    }

    #[test]
    fn encode_grant_truncates_sub_unit_to_base_grant() {
        assert_eq!(encode_grant(GBPS, 1), 125);
        // The D3 base rate (62 B per 300 us) and any share below one unit: the base grant.
        assert_eq!(encode_grant(206_667, 1), BASE_GRANT);
        assert_eq!(encode_grant(999_999, 1), BASE_GRANT);
        assert_eq!(encode_grant(1_000_000, 1), 1);
        assert_eq!(encode_grant(1_999_999, 1), 1);
        assert_eq!(encode_grant(GBPS, 10), 12); // 12.5 units
        assert_eq!(encode_grant(255 * UNIT_BYTES_PER_SEC, 1), 255);
        assert_eq!(encode_grant(u64::MAX, 1), 255);
        assert_eq!(encode_grant(u64::MAX, 255), 255);
    }

    #[test]
    fn decode_rate_examples() {
        assert_eq!(decode_rate(125, 1), GBPS);
        assert_eq!(decode_rate(0, 7), 0);
        assert_eq!(decode_rate(255, 1), 255_000_000);
        assert_eq!(decode_rate(255, 255), 65_025_000_000);
    }

    #[test]
    fn decode_then_encode_is_identity() {
        for scale in 1..=255u8 {
            for value in 0..=255u8 {
                let rate = decode_rate(value, scale);
                assert_eq!(encode_request(rate, scale), value);
                assert_eq!(encode_grant(rate, scale), value);
            }
        }
    }

    #[test]
    fn scale_for_examples() {
        assert_eq!(scale_for(0), 1);
        assert_eq!(scale_for(GBPS), 1);
        assert_eq!(scale_for(255 * UNIT_BYTES_PER_SEC), 1);
        assert_eq!(scale_for(255 * UNIT_BYTES_PER_SEC + 1), 2);
        assert_eq!(scale_for(10 * GBPS), 5);
        assert_eq!(scale_for(40 * GBPS), 20);
        assert_eq!(scale_for(100 * GBPS), 50);
        assert_eq!(scale_for(decode_rate(255, 255)), 255);
        assert_eq!(scale_for(decode_rate(255, 255) + 1), 255);
        assert_eq!(scale_for(u64::MAX), 255);
    }

    #[test]
    #[should_panic(expected = "scale factor must be at least 1")]
    fn encode_zero_scale_panics() {
        encode_grant(GBPS, 0);
    }

    #[test]
    #[should_panic(expected = "scale factor must be at least 1")]
    fn decode_rate_zero_scale_panics() {
        decode_rate(125, 0);
    }

    fn any_valid_repr() -> impl Strategy<Value = Repr> {
        (
            any::<u8>(),
            0..=VECTOR_LEN as u8,
            any::<[u8; VECTOR_LEN]>(),
            any::<u8>(),
            any::<[u8; VECTOR_LEN]>(),
            any::<[u8; VECTOR_LEN]>(),
            1..=u8::MAX,
        )
            .prop_map(|(d, i, a, pd, pa, fb, s)| Repr {
                desired_rate: d,
                index: i,
                alloc: a,
                prev_desired_rate: pd,
                prev_alloc: pa,
                feedback: fb,
                scale: s,
            })
    }

    /// Rates from 0 to a little past the largest encodable rate at any scale, biased to small ones.
    fn any_rate() -> impl Strategy<Value = u64> {
        prop_oneof![0..2_000_000u64, 0..70_000_000_000u64, any::<u64>()]
    }

    proptest! {
        #[test]
        fn valid_repr_emits_and_parses_back(repr in any_valid_repr(), extra in 0..8usize) {
            let mut buf = vec![0u8; HEADER_LEN + extra];
            repr.emit(&mut Packet::new_unchecked(&mut buf[..]));
            let packet = Packet::new_checked(&buf[..]).unwrap();
            prop_assert_eq!(Repr::parse(&packet), Ok(repr));
        }

        #[test]
        fn any_bytes_parse_or_error_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let result = Repr::parse(&Packet::new_unchecked(&bytes[..]));
            // Oracle: the errors in their documented order, else a header equal to the bytes.
            if bytes.len() < HEADER_LEN {
                prop_assert_eq!(result, Err(Error::Truncated));
            } else if usize::from(bytes[1]) > VECTOR_LEN {
                prop_assert_eq!(result, Err(Error::BadIndex(bytes[1])));
            } else if bytes[21] == 0 {
                prop_assert_eq!(result, Err(Error::BadScale));
            } else {
                let repr = result.unwrap();
                let mut out = [0u8; HEADER_LEN];
                repr.emit(&mut Packet::new_unchecked(&mut out[..]));
                prop_assert_eq!(&out[..], &bytes[..HEADER_LEN]);
            }
        }

        #[test]
        fn request_never_below_grant_never_above_within_a_unit(rate in any_rate(), scale in 1..=u8::MAX) {
            let unit = u64::from(scale) * UNIT_BYTES_PER_SEC;
            let (up, down) = (encode_request(rate, scale), encode_grant(rate, scale));
            prop_assert!(up >= down);
            if rate > decode_rate(u8::MAX, scale) {
                // Saturated: both at the largest value, below the rate.
                prop_assert_eq!((up, down), (u8::MAX, u8::MAX));
            } else {
                prop_assert!(decode_rate(up, scale) >= rate && decode_rate(up, scale) - rate < unit);
                prop_assert!(decode_rate(down, scale) <= rate && rate - decode_rate(down, scale) < unit);
                prop_assert_eq!(up == 0, rate == 0);
            }
        }

        #[test]
        fn encode_is_monotone(a in any_rate(), b in any_rate(), scale in 1..=u8::MAX) {
            let (lo, hi) = (a.min(b), a.max(b));
            prop_assert!(encode_request(lo, scale) <= encode_request(hi, scale));
            prop_assert!(encode_grant(lo, scale) <= encode_grant(hi, scale));
        }

        #[test]
        fn scale_for_is_smallest_covering_scale(max in any_rate()) {
            let scale = scale_for(max);
            prop_assert!(scale >= 1);
            if scale < u8::MAX {
                prop_assert!(decode_rate(u8::MAX, scale) >= max);
            }
            if scale > 1 {
                prop_assert!(decode_rate(u8::MAX, scale - 1) < max);
            }
        }
    }
}
