//! The PDQ scheduling header: a flow's rate, pause, deadline and expected transmission time,
//! 20 bytes (PDQ, Hong, Caesar, Godfrey, "Finishing Flows Quickly with Preemptive Scheduling",
//! SIGCOMM 2012, Section 3.1).
//!
//! Every PDQ packet carries `<R_H, P_H, D_H, T_H, RTT_H, I_H>`: data, probes and ACKs alike. The
//! sender writes its maximum rate and its flow's state; each switch on the path lowers the rate to
//! what it accepts, or sets it to 0 and writes its own identity into the pause-by field; the
//! receiver copies the header into its ACK, so that the switches' answer reaches the sender.
//!
//! # Layout
//!
//! The paper's field widths are not at hand, so this codec fixes its own: 4 bytes each for the
//! rate, pause-by, deadline and expected transmission time, 2 for the RTT, and 2 shared by three
//! flags and the inter-probing time. Multi-byte fields are big-endian (network byte order).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                          rate R_H                             |  0
//! +---------------------------------------------------------------+
//! |                        pause-by P_H                           |  4
//! +---------------------------------------------------------------+
//! |                        deadline D_H                           |  8
//! +---------------------------------------------------------------+
//! |               expected transmission time T_H                  | 12
//! +-------------------------------+-+-+-+-------------------------+
//! |             RTT_H             |P|S|F| inter-probing time I_H  | 16
//! +-------------------------------+-+-+-+-------------------------+
//! ```
//!
//! | Field | Bytes | Unit | Meaning |
//! |-------|-------|------|---------|
//! | [`rate`](Packet::rate) R_H | 0..4 | 1000 bytes/s (8 kbps) | rate the flow may send at; 0 when a switch paused it |
//! | [`pause_by`](Packet::pause_by) P_H | 4..8 | switch identity | the switch that paused the flow; [`NO_PAUSE`] (`0xFFFF_FFFF`) for none |
//! | [`deadline`](Packet::deadline) D_H | 8..12 | µs since a shared time origin | the flow's absolute deadline; [`NO_DEADLINE`] (`0xFFFF_FFFF`) for none |
//! | [`expected_time`](Packet::expected_time) T_H | 12..16 | ns | the flow's expected remaining transmission time, the shortest-job-first key |
//! | [`rtt`](Packet::rtt) RTT_H | 16..18 | µs | the sender's RTT estimate; 0 before its first sample |
//! | [`probe`](Packet::probe) P | bit 15 of 18..20 | flag | a header-only packet (SYN, probe, FIN): its ACK acknowledges no data |
//! | [`syn`](Packet::syn) S | bit 14 of 18..20 | flag | the flow's first packet |
//! | [`fin`](Packet::fin) F | bit 13 of 18..20 | flag | the flow's last packet: the switches forget the flow |
//! | [`inter_probe`](Packet::inter_probe) I_H | bits 12..0 of 18..20 | thousandths of an RTT | how long a paused sender waits between probes, `0..=8191` |
//!
//! Bits are numbered from the least significant: bit 15 is the top bit of byte 18.
//!
//! # Units and their ranges
//!
//! The units are chosen so that datacenter values fit, and each field saturates at its largest
//! value rather than wrapping:
//!
//! - **Rate**, 1000 bytes/s: 1 Gbps is 125_000, 100 Gbps 12_500_000, and the field reaches
//!   34.4 Tbps. [`encode_rate`] truncates to whole units (a switch never shows more than it
//!   accepted) but keeps a positive rate at least 1, because 0 means "paused".
//! - **Pause-by**, an opaque switch identity. [`NO_PAUSE`] is reserved for "no switch paused the
//!   flow", so identities run up to [`MAX_SWITCH_ID`].
//! - **Deadline**, whole microseconds since a time origin every node that reads the header shares
//!   (in a simulation, its start): 71.6 minutes. [`NO_DEADLINE`] is reserved for a flow without
//!   one, so deadlines run up to [`MAX_DEADLINE`]. Deadlines in a datacenter are milliseconds
//!   apart, so a microsecond orders them.
//! - **Expected transmission time**, nanoseconds: up to 4.29 s. Finer than the deadline, because
//!   shortest-job-first compares flows a few packets apart, and a 1500-byte packet takes 120 ns at
//!   100 Gbps. A flow with no known size (an infinite T) shows as the maximum.
//! - **RTT**, microseconds in 2 bytes: up to 65.5 ms, ample for datacenter round trips of tens to
//!   hundreds of microseconds even with full queues.
//! - **Inter-probing time**, thousandths of an RTT in 13 bits: up to 8.191 RTTs ([`INTER_PROBE_MAX`]).
//!   Suppressed Probing (Section 3.3.3) sets it to X times the flows ahead of a flow in a
//!   switch's list, so with X = 0.2 a flow with 41 or more ahead shows the maximum.
//!
//! Every bit pattern of the 20 bytes is a header: the flags and the inter-probing time use all 16
//! bits of their field, and the two reserved values are values, not errors. So [`Repr::parse`]
//! rejects only a buffer that is too short; [`Repr::validate`] rejects the `Repr`s that no header
//! parses to (a reserved value in an `Option`, an inter-probing time above 13 bits).
//!
//! # Example
//!
//! A sender's SYN on a 1 Gbps link, and a switch that pauses the flow:
//!
//! ```
//! use incast_wire::pdq::{decode_rate, encode_rate, Packet, Repr, HEADER_LEN};
//!
//! let syn = Repr {
//!     rate: encode_rate(125_000_000), // 1 Gbps in bytes per second
//!     pause_by: None,
//!     deadline: Some(20_000), // 20 ms after the time origin
//!     expected_time: 800_000, // 100 KB at 1 Gbps, in ns
//!     rtt: 0,
//!     inter_probe: 0,
//!     probe: true,
//!     syn: true,
//!     fin: false,
//! };
//! let mut bytes = [0u8; HEADER_LEN];
//! syn.emit(&mut Packet::new_unchecked(&mut bytes[..]));
//! assert_eq!(bytes[..4], [0x00, 0x01, 0xE8, 0x48]); // 125_000, big-endian
//!
//! // A switch: pause the flow and name itself.
//! let mut packet = Packet::new_checked(&mut bytes[..])?;
//! packet.set_rate(0);
//! packet.set_pause_by(7);
//!
//! let seen = Repr::parse(&Packet::new_checked(&bytes[..])?)?;
//! assert_eq!((decode_rate(seen.rate), seen.pause_by), (0, Some(7)));
//! # Ok::<(), incast_wire::pdq::Error>(())
//! ```
//!
//! # Panic contract
//!
//! - [`Packet::new_checked`] and [`Packet::check_len`] never panic. After `new_checked` succeeds,
//!   no getter or setter panics.
//! - On a [`Packet::new_unchecked`] view of a buffer shorter than [`HEADER_LEN`], getters and
//!   setters may panic (out-of-bounds slice index).
//! - [`Repr::parse`] never panics, on any buffer: it checks the length itself.
//! - [`Repr::emit`] panics if the buffer is shorter than [`HEADER_LEN`].
//! - [`encode_rate`] and [`decode_rate`] never panic.

use core::ops::Range;
use std::fmt;

/// Length of the PDQ scheduling header in bytes: four 4-byte fields (rate, pause-by, deadline,
/// expected transmission time) and two 2-byte ones (RTT; flags and inter-probing time).
pub const HEADER_LEN: usize = 20;

/// Bytes per second in one unit of the rate field: 8 kbps, so that 4 bytes reach 34.4 Tbps.
pub const RATE_UNIT_BYTES_PER_SEC: u64 = 1_000;

/// The pause-by value that says no switch paused the flow.
pub const NO_PAUSE: u32 = u32::MAX;

/// The largest switch identity the pause-by field carries ([`NO_PAUSE`] is reserved).
pub const MAX_SWITCH_ID: u32 = NO_PAUSE - 1;

/// The deadline value that says the flow has no deadline.
pub const NO_DEADLINE: u32 = u32::MAX;

/// The latest deadline the field carries, in microseconds ([`NO_DEADLINE`] is reserved).
pub const MAX_DEADLINE: u32 = NO_DEADLINE - 1;

/// The largest inter-probing time, in thousandths of an RTT: the 13 bits the flags leave.
pub const INTER_PROBE_MAX: u16 = field::INTER_PROBE_MASK;

/// Byte offsets and ranges of the header fields, in wire order, and the bits of the last field.
pub mod field {
    use core::ops::Range;

    /// Rate R_H, in units of 1000 bytes/s.
    pub const RATE: Range<usize> = 0..4;
    /// Pause-by P_H: the switch that paused the flow.
    pub const PAUSE_BY: Range<usize> = 4..8;
    /// Deadline D_H, in microseconds since the time origin.
    pub const DEADLINE: Range<usize> = 8..12;
    /// Expected transmission time T_H, in nanoseconds.
    pub const EXPECTED_TIME: Range<usize> = 12..16;
    /// RTT_H, in microseconds.
    pub const RTT: Range<usize> = 16..18;
    /// The flags and the inter-probing time I_H, one 16-bit word.
    pub const FLAGS_INTER_PROBE: Range<usize> = 18..20;

    /// Bit of [`FLAGS_INTER_PROBE`]: a header-only packet.
    pub const FLAG_PROBE: u16 = 0x8000;
    /// Bit of [`FLAGS_INTER_PROBE`]: the flow's first packet.
    pub const FLAG_SYN: u16 = 0x4000;
    /// Bit of [`FLAGS_INTER_PROBE`]: the flow's last packet.
    pub const FLAG_FIN: u16 = 0x2000;
    /// Bits of [`FLAGS_INTER_PROBE`] that hold the inter-probing time.
    pub const INTER_PROBE_MASK: u16 = 0x1FFF;
}

// The ranges above must tile the header exactly, and the bits of the last field must tile it.
const _: () = {
    assert!(field::RATE.start == 0 && field::RATE.end - field::RATE.start == 4);
    assert!(field::PAUSE_BY.start == field::RATE.end);
    assert!(field::PAUSE_BY.end - field::PAUSE_BY.start == 4);
    assert!(field::DEADLINE.start == field::PAUSE_BY.end);
    assert!(field::DEADLINE.end - field::DEADLINE.start == 4);
    assert!(field::EXPECTED_TIME.start == field::DEADLINE.end);
    assert!(field::EXPECTED_TIME.end - field::EXPECTED_TIME.start == 4);
    assert!(field::RTT.start == field::EXPECTED_TIME.end);
    assert!(field::RTT.end - field::RTT.start == 2);
    assert!(field::FLAGS_INTER_PROBE.start == field::RTT.end);
    assert!(field::FLAGS_INTER_PROBE.end - field::FLAGS_INTER_PROBE.start == 2);
    assert!(HEADER_LEN == field::FLAGS_INTER_PROBE.end);
    let bits = [field::FLAG_PROBE, field::FLAG_SYN, field::FLAG_FIN, field::INTER_PROBE_MASK];
    assert!(bits[0] | bits[1] | bits[2] | bits[3] == u16::MAX);
    assert!(bits[0] & bits[1] == 0 && bits[0] & bits[2] == 0 && bits[1] & bits[2] == 0);
    assert!((bits[0] | bits[1] | bits[2]) & bits[3] == 0);
};

/// Why a buffer does not hold a PDQ scheduling header, or a [`Repr`] is not one any header
/// parses to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer is shorter than [`HEADER_LEN`]. The only error [`Repr::parse`] returns.
    Truncated,
    /// From [`Repr::validate`]: `pause_by` is `Some(NO_PAUSE)`, which the wire reads as `None`.
    ReservedPauseBy,
    /// From [`Repr::validate`]: `deadline` is `Some(NO_DEADLINE)`, which the wire reads as `None`.
    ReservedDeadline,
    /// From [`Repr::validate`]: the inter-probing time is above [`INTER_PROBE_MAX`] and would
    /// not fit its 13 bits; the value found is carried.
    InterProbeTooLarge(u16),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated => write!(f, "PDQ header truncated: need {HEADER_LEN} bytes"),
            Error::ReservedPauseBy => {
                write!(f, "PDQ header pause-by {NO_PAUSE:#x} is reserved for no pause")
            }
            Error::ReservedDeadline => {
                write!(f, "PDQ header deadline {NO_DEADLINE:#x} is reserved for no deadline")
            }
            Error::InterProbeTooLarge(v) => write!(
                f,
                "PDQ header inter-probing time {v} is above the 13-bit maximum {INTER_PROBE_MAX}"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// A zero-copy view of a PDQ scheduling header at the start of a byte buffer.
///
/// Bytes after [`HEADER_LEN`] are ignored (they are the rest of the packet). Getters return the
/// raw field values, reserved values included; [`Repr::parse`] turns those into `None`. See the
/// module's panic contract.
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
    /// On success no getter or setter panics.
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

    /// Rate R_H, in units of [`RATE_UNIT_BYTES_PER_SEC`]; 0 for a paused flow.
    pub fn rate(&self) -> u32 {
        self.read_u32(field::RATE)
    }

    /// Pause-by P_H, raw: a switch identity, or [`NO_PAUSE`].
    pub fn pause_by(&self) -> u32 {
        self.read_u32(field::PAUSE_BY)
    }

    /// Deadline D_H, raw: microseconds since the time origin, or [`NO_DEADLINE`].
    pub fn deadline(&self) -> u32 {
        self.read_u32(field::DEADLINE)
    }

    /// Expected transmission time T_H, in nanoseconds.
    pub fn expected_time(&self) -> u32 {
        self.read_u32(field::EXPECTED_TIME)
    }

    /// RTT_H, in microseconds; 0 before the sender's first sample.
    pub fn rtt(&self) -> u16 {
        self.read_u16(field::RTT)
    }

    /// The probe flag: a header-only packet.
    pub fn probe(&self) -> bool {
        self.flags_inter_probe() & field::FLAG_PROBE != 0
    }

    /// The SYN flag: the flow's first packet.
    pub fn syn(&self) -> bool {
        self.flags_inter_probe() & field::FLAG_SYN != 0
    }

    /// The FIN flag: the flow's last packet.
    pub fn fin(&self) -> bool {
        self.flags_inter_probe() & field::FLAG_FIN != 0
    }

    /// Inter-probing time I_H, in thousandths of an RTT, `0..=INTER_PROBE_MAX`.
    pub fn inter_probe(&self) -> u16 {
        self.flags_inter_probe() & field::INTER_PROBE_MASK
    }

    fn flags_inter_probe(&self) -> u16 {
        self.read_u16(field::FLAGS_INTER_PROBE)
    }

    fn read_u32(&self, range: Range<usize>) -> u32 {
        let mut bytes = [0; 4];
        bytes.copy_from_slice(&self.buffer.as_ref()[range]);
        u32::from_be_bytes(bytes)
    }

    fn read_u16(&self, range: Range<usize>) -> u16 {
        let mut bytes = [0; 2];
        bytes.copy_from_slice(&self.buffer.as_ref()[range]);
        u16::from_be_bytes(bytes)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the rate R_H, in units of [`RATE_UNIT_BYTES_PER_SEC`].
    pub fn set_rate(&mut self, value: u32) {
        self.write(field::RATE, &value.to_be_bytes());
    }

    /// Sets the pause-by P_H, raw: [`NO_PAUSE`] clears it.
    pub fn set_pause_by(&mut self, value: u32) {
        self.write(field::PAUSE_BY, &value.to_be_bytes());
    }

    /// Sets the deadline D_H, raw: [`NO_DEADLINE`] for none.
    pub fn set_deadline(&mut self, value: u32) {
        self.write(field::DEADLINE, &value.to_be_bytes());
    }

    /// Sets the expected transmission time T_H, in nanoseconds.
    pub fn set_expected_time(&mut self, value: u32) {
        self.write(field::EXPECTED_TIME, &value.to_be_bytes());
    }

    /// Sets RTT_H, in microseconds.
    pub fn set_rtt(&mut self, value: u16) {
        self.write(field::RTT, &value.to_be_bytes());
    }

    /// Sets or clears the probe flag, leaving the rest of its field.
    pub fn set_probe(&mut self, value: bool) {
        self.set_bits(field::FLAG_PROBE, if value { field::FLAG_PROBE } else { 0 });
    }

    /// Sets or clears the SYN flag, leaving the rest of its field.
    pub fn set_syn(&mut self, value: bool) {
        self.set_bits(field::FLAG_SYN, if value { field::FLAG_SYN } else { 0 });
    }

    /// Sets or clears the FIN flag, leaving the rest of its field.
    pub fn set_fin(&mut self, value: bool) {
        self.set_bits(field::FLAG_FIN, if value { field::FLAG_FIN } else { 0 });
    }

    /// Sets the inter-probing time I_H, leaving the flags. A value above [`INTER_PROBE_MAX`] is
    /// written as the maximum: it saturates, as every field of this header does, rather than
    /// spill into the flags.
    pub fn set_inter_probe(&mut self, value: u16) {
        self.set_bits(field::INTER_PROBE_MASK, value.min(INTER_PROBE_MAX));
    }

    /// Replaces the bits `mask` of the flags and inter-probing word with those of `value`.
    fn set_bits(&mut self, mask: u16, value: u16) {
        let word = (self.flags_inter_probe() & !mask) | (value & mask);
        self.write(field::FLAGS_INTER_PROBE, &word.to_be_bytes());
    }

    fn write(&mut self, range: Range<usize>, bytes: &[u8]) {
        self.buffer.as_mut()[range].copy_from_slice(bytes);
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// A PDQ scheduling header, with the reserved values read as `None`.
///
/// Values are in the wire's units (see the module's field table); [`encode_rate`] and
/// [`decode_rate`] convert rates. A `Repr` that passes [`Repr::validate`] emits a header that
/// parses back to it exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// R_H, in units of [`RATE_UNIT_BYTES_PER_SEC`]; 0 when a switch paused the flow.
    pub rate: u32,
    /// P_H: the switch that paused the flow, `0..=MAX_SWITCH_ID`; `None` while it may send.
    pub pause_by: Option<u32>,
    /// D_H: the flow's absolute deadline in microseconds since the time origin,
    /// `0..=MAX_DEADLINE`; `None` without one.
    pub deadline: Option<u32>,
    /// T_H: the expected remaining transmission time, in nanoseconds.
    pub expected_time: u32,
    /// RTT_H: the sender's RTT estimate in microseconds; 0 before its first sample.
    pub rtt: u16,
    /// I_H: how long a paused sender waits between probes, in thousandths of an RTT,
    /// `0..=INTER_PROBE_MAX`.
    pub inter_probe: u16,
    /// A header-only packet (SYN, probe, FIN).
    pub probe: bool,
    /// The flow's first packet.
    pub syn: bool,
    /// The flow's last packet.
    pub fin: bool,
}

impl Repr {
    /// Parses a header.
    ///
    /// Fails with [`Error::Truncated`] if the buffer is shorter than [`HEADER_LEN`] (even on a
    /// [`Packet::new_unchecked`] view, so this never panics); any 20 bytes are a header. The
    /// reserved values [`NO_PAUSE`] and [`NO_DEADLINE`] become `None`.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(packet: &Packet<&T>) -> Result<Repr, Error> {
        packet.check_len()?;
        Ok(Repr {
            rate: packet.rate(),
            pause_by: Some(packet.pause_by()).filter(|&id| id != NO_PAUSE),
            deadline: Some(packet.deadline()).filter(|&us| us != NO_DEADLINE),
            expected_time: packet.expected_time(),
            rtt: packet.rtt(),
            inter_probe: packet.inter_probe(),
            probe: packet.probe(),
            syn: packet.syn(),
            fin: packet.fin(),
        })
    }

    /// Checks that some header parses to this `Repr`: no reserved value inside `Some`
    /// ([`Error::ReservedPauseBy`], [`Error::ReservedDeadline`]), and an inter-probing time that
    /// fits 13 bits ([`Error::InterProbeTooLarge`]), checked in that order.
    pub fn validate(&self) -> Result<(), Error> {
        if self.pause_by == Some(NO_PAUSE) {
            return Err(Error::ReservedPauseBy);
        }
        if self.deadline == Some(NO_DEADLINE) {
            return Err(Error::ReservedDeadline);
        }
        if self.inter_probe > INTER_PROBE_MAX {
            return Err(Error::InterProbeTooLarge(self.inter_probe));
        }
        Ok(())
    }

    /// Bytes this header occupies on the wire: always [`HEADER_LEN`].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first [`HEADER_LEN`] bytes of the buffer, leaving the rest.
    ///
    /// A `Repr` that fails [`Repr::validate`] emits a header that parses to a different `Repr`:
    /// `Some` of a reserved value reads back as `None`, and an inter-probing time above 13 bits
    /// is written as [`INTER_PROBE_MAX`].
    ///
    /// # Panics
    /// If the buffer is shorter than [`HEADER_LEN`].
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, packet: &mut Packet<&mut T>) {
        packet.set_rate(self.rate);
        packet.set_pause_by(self.pause_by.unwrap_or(NO_PAUSE));
        packet.set_deadline(self.deadline.unwrap_or(NO_DEADLINE));
        packet.set_expected_time(self.expected_time);
        packet.set_rtt(self.rtt);
        packet.set_inter_probe(self.inter_probe);
        packet.set_probe(self.probe);
        packet.set_syn(self.syn);
        packet.set_fin(self.fin);
    }
}

/// Encodes a rate in bytes per second as the rate field: truncated to whole units of
/// [`RATE_UNIT_BYTES_PER_SEC`], saturating at `u32::MAX` (34.4 Tbps).
///
/// Truncated because R_H is what a switch accepts, and the field should never show more. A
/// positive rate below one unit is written as 1, though: 0 in R_H means the flow is paused, and a
/// slow flow is not a paused one.
pub fn encode_rate(bytes_per_sec: u64) -> u32 {
    let units = (bytes_per_sec / RATE_UNIT_BYTES_PER_SEC).max(u64::from(bytes_per_sec > 0));
    u32::try_from(units).unwrap_or(u32::MAX)
}

/// The rate in bytes per second that a rate field `value` stands for: exact,
/// `value × 1000`, at most 4_294_967_295_000 B/s.
pub fn decode_rate(value: u32) -> u64 {
    u64::from(value) * RATE_UNIT_BYTES_PER_SEC
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 1 Gbps in bytes per second.
    const GBPS: u64 = 125_000_000;

    /// The SYN of a 100 KB flow on a 1 Gbps link with a deadline 20 ms after the origin: the
    /// sender asks for its NIC's rate, has no RTT sample yet and has not been paused.
    static SYN: [u8; 20] = [
        0x00, 0x01, 0xE8, 0x48, // rate: 125_000 units = 1 Gbps
        0xFF, 0xFF, 0xFF, 0xFF, // pause-by: none
        0x00, 0x00, 0x4E, 0x20, // deadline: 20_000 us
        0x00, 0x0C, 0x35, 0x00, // expected time: 800_000 ns (100 KB at 1 Gbps)
        0x00, 0x00, // RTT: no sample
        0xC0, 0x00, // probe, SYN; inter-probing time 0
    ];

    fn syn_repr() -> Repr {
        Repr {
            rate: 125_000,
            pause_by: None,
            deadline: Some(20_000),
            expected_time: 800_000,
            rtt: 0,
            inter_probe: 0,
            probe: true,
            syn: true,
            fin: false,
        }
    }

    /// The ACK of a probe from a long-lived flow without a deadline, paused by switch 3, fourth
    /// in its list: rate 0, T saturated, a 300 us RTT, and I_H = 0.2 RTT x 3.
    static PAUSED_PROBE_ACK: [u8; 20] = [
        0x00, 0x00, 0x00, 0x00, // rate: paused
        0x00, 0x00, 0x00, 0x03, // pause-by: switch 3
        0xFF, 0xFF, 0xFF, 0xFF, // deadline: none
        0xFF, 0xFF, 0xFF, 0xFF, // expected time: saturated (unknown size)
        0x01, 0x2C, // RTT: 300 us
        0x82, 0x58, // probe; inter-probing time 600 (0.6 RTT)
    ];

    fn paused_probe_ack_repr() -> Repr {
        Repr {
            rate: 0,
            pause_by: Some(3),
            deadline: None,
            expected_time: u32::MAX,
            rtt: 300,
            inter_probe: 600,
            probe: true,
            syn: false,
            fin: false,
        }
    }

    /// A data packet at 100 Gbps with a 12 us RTT and the largest inter-probing time.
    static DATA_100G: [u8; 20] = [
        0x00, 0xBE, 0xBC, 0x20, // rate: 12_500_000 units = 100 Gbps
        0xFF, 0xFF, 0xFF, 0xFF, // pause-by: none
        0x00, 0x12, 0xD6, 0x87, // deadline: 1_234_567 us
        0x00, 0x00, 0x27, 0x10, // expected time: 10_000 ns
        0x00, 0x0C, // RTT: 12 us
        0x1F, 0xFF, // no flags; inter-probing time 8191
    ];

    fn data_100g_repr() -> Repr {
        Repr {
            rate: 12_500_000,
            pause_by: None,
            deadline: Some(1_234_567),
            expected_time: 10_000,
            rtt: 12,
            inter_probe: INTER_PROBE_MAX,
            probe: false,
            syn: false,
            fin: false,
        }
    }

    /// A header-only FIN with the largest switch identity and deadline the fields carry.
    static FIN_LIMITS: [u8; 20] = [
        0x00, 0x00, 0x00, 0x01, // rate: one unit
        0xFF, 0xFF, 0xFF, 0xFE, // pause-by: MAX_SWITCH_ID
        0xFF, 0xFF, 0xFF, 0xFE, // deadline: MAX_DEADLINE
        0x00, 0x00, 0x00, 0x00, // expected time: nothing left
        0xFF, 0xFF, // RTT: 65_535 us
        0xA0, 0x00, // probe, FIN
    ];

    fn fin_limits_repr() -> Repr {
        Repr {
            rate: 1,
            pause_by: Some(MAX_SWITCH_ID),
            deadline: Some(MAX_DEADLINE),
            expected_time: 0,
            rtt: u16::MAX,
            inter_probe: 0,
            probe: true,
            syn: false,
            fin: true,
        }
    }

    fn roundtrip_literal(bytes: &[u8; 20], expected: Repr) {
        let packet = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(Repr::parse(&packet), Ok(expected));
        assert_eq!(expected.validate(), Ok(()));
        let mut out = [0xAA; 20];
        expected.emit(&mut Packet::new_unchecked(&mut out[..]));
        assert_eq!(&out, bytes);
    }

    #[test]
    fn syn_roundtrip() {
        roundtrip_literal(&SYN, syn_repr());
        assert_eq!(decode_rate(syn_repr().rate), GBPS);
    }

    #[test]
    fn paused_probe_ack_roundtrip() {
        roundtrip_literal(&PAUSED_PROBE_ACK, paused_probe_ack_repr());
    }

    #[test]
    fn data_100g_roundtrip() {
        roundtrip_literal(&DATA_100G, data_100g_repr());
        assert_eq!(decode_rate(data_100g_repr().rate), 100 * GBPS);
    }

    #[test]
    fn fin_at_field_limits_roundtrip() {
        roundtrip_literal(&FIN_LIMITS, fin_limits_repr());
    }

    #[test]
    fn getters_read_documented_offsets_big_endian() {
        let bytes: [u8; 20] = core::array::from_fn(|i| i as u8 + 1);
        let p = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(p.rate(), 0x0102_0304);
        assert_eq!(p.pause_by(), 0x0506_0708);
        assert_eq!(p.deadline(), 0x090A_0B0C);
        assert_eq!(p.expected_time(), 0x0D0E_0F10);
        assert_eq!(p.rtt(), 0x1112);
        // 0x1314: no flag bits set, inter-probing time 0x1314.
        assert_eq!((p.probe(), p.syn(), p.fin(), p.inter_probe()), (false, false, false, 0x1314));
    }

    #[test]
    fn flag_bits_read_from_top_of_last_field() {
        for (word, flags) in [
            (0x8000u16, (true, false, false)),
            (0x4000, (false, true, false)),
            (0x2000, (false, false, true)),
            (0xFFFF, (true, true, true)),
        ] {
            let mut bytes = [0u8; 20];
            bytes[18..].copy_from_slice(&word.to_be_bytes());
            let p = Packet::new_checked(&bytes[..]).unwrap();
            assert_eq!((p.probe(), p.syn(), p.fin()), flags);
            assert_eq!(p.inter_probe(), word & 0x1FFF);
        }
    }

    #[test]
    fn setters_write_documented_offsets_big_endian() {
        let mut bytes = [0u8; 20];
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        p.set_rate(0x0102_0304);
        p.set_pause_by(0x0506_0708);
        p.set_deadline(0x090A_0B0C);
        p.set_expected_time(0x0D0E_0F10);
        p.set_rtt(0x1112);
        p.set_inter_probe(0x1314);
        let expected: [u8; 20] = core::array::from_fn(|i| i as u8 + 1);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn flag_setters_leave_inter_probe_and_other_flags() {
        let mut bytes = [0u8; 20];
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        p.set_inter_probe(600);
        p.set_probe(true);
        p.set_fin(true);
        assert_eq!(p.as_ref()[18..], [0xA2, 0x58]);
        p.set_syn(true);
        p.set_probe(false);
        assert_eq!(p.as_ref()[18..], [0x62, 0x58]);
        p.set_inter_probe(0);
        assert_eq!(p.as_ref()[18..], [0x60, 0x00]);
        p.set_syn(false);
        p.set_fin(false);
        assert_eq!(p.as_ref()[18..], [0x00, 0x00]);
    }

    #[test]
    fn set_inter_probe_above_13_bits_saturates_and_keeps_flags() {
        let mut bytes = [0u8; 20];
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        p.set_syn(true);
        p.set_inter_probe(40_000);
        assert_eq!((p.syn(), p.probe(), p.fin(), p.inter_probe()), (true, false, false, INTER_PROBE_MAX));
        assert_eq!(bytes[18..], [0x5F, 0xFF]);
    }

    #[test]
    fn switch_pauses_flow_in_place() {
        // A switch pauses the SYN's flow: rate 0, pause-by itself; the rest is untouched.
        let mut bytes = SYN;
        let mut p = Packet::new_checked(&mut bytes[..]).unwrap();
        p.set_rate(0);
        p.set_pause_by(7);
        assert_eq!(
            bytes,
            [0, 0, 0, 0, 0, 0, 0, 7, 0x00, 0x00, 0x4E, 0x20, 0x00, 0x0C, 0x35, 0x00, 0, 0, 0xC0, 0x00]
        );
        let repr = Repr::parse(&Packet::new_unchecked(&bytes[..])).unwrap();
        assert_eq!(repr, Repr { rate: 0, pause_by: Some(7), ..syn_repr() });
    }

    #[test]
    fn trailing_payload_is_ignored_and_untouched() {
        let mut bytes = [0x55u8; 28];
        bytes[..20].copy_from_slice(&PAUSED_PROBE_ACK);
        let p = Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(Repr::parse(&p), Ok(paused_probe_ack_repr()));

        let mut out = [0x55u8; 28];
        paused_probe_ack_repr().emit(&mut Packet::new_unchecked(&mut out[..]));
        assert_eq!(out, bytes);
        assert_eq!(paused_probe_ack_repr().buffer_len(), HEADER_LEN);
    }

    #[test]
    fn truncated_buffers_are_rejected() {
        for len in [0, 1, 19] {
            let bytes = &SYN[..len];
            assert_eq!(Packet::new_checked(bytes), Err(Error::Truncated));
            // `parse` checks the length itself, so an unchecked view is safe to parse.
            assert_eq!(Repr::parse(&Packet::new_unchecked(bytes)), Err(Error::Truncated));
        }
    }

    #[test]
    fn all_ones_parses_as_no_pause_no_deadline_all_flags() {
        let bytes = [0xFFu8; 20];
        let repr = Repr::parse(&Packet::new_checked(&bytes[..]).unwrap()).unwrap();
        assert_eq!(
            repr,
            Repr {
                rate: u32::MAX,
                pause_by: None,
                deadline: None,
                expected_time: u32::MAX,
                rtt: u16::MAX,
                inter_probe: INTER_PROBE_MAX,
                probe: true,
                syn: true,
                fin: true,
            }
        );
    }

    #[test]
    fn validate_rejects_reprs_no_header_parses_to_in_order() {
        let ok = data_100g_repr();
        assert_eq!(Repr { pause_by: Some(NO_PAUSE), ..ok }.validate(), Err(Error::ReservedPauseBy));
        assert_eq!(Repr { deadline: Some(NO_DEADLINE), ..ok }.validate(), Err(Error::ReservedDeadline));
        assert_eq!(
            Repr { inter_probe: INTER_PROBE_MAX + 1, ..ok }.validate(),
            Err(Error::InterProbeTooLarge(8192))
        );
        // All three wrong: the pause-by is reported first, then the deadline.
        let all = Repr { pause_by: Some(NO_PAUSE), deadline: Some(NO_DEADLINE), inter_probe: u16::MAX, ..ok };
        assert_eq!(all.validate(), Err(Error::ReservedPauseBy));
        assert_eq!(Repr { pause_by: None, ..all }.validate(), Err(Error::ReservedDeadline));
    }

    #[test]
    fn invalid_repr_emits_what_parse_reads_differently() {
        let bad = Repr { pause_by: Some(NO_PAUSE), deadline: Some(NO_DEADLINE), inter_probe: u16::MAX, ..syn_repr() };
        let mut out = [0u8; 20];
        bad.emit(&mut Packet::new_unchecked(&mut out[..]));
        let back = Repr::parse(&Packet::new_unchecked(&out[..])).unwrap();
        assert_eq!(back, Repr { pause_by: None, deadline: None, inter_probe: INTER_PROBE_MAX, ..syn_repr() });
        assert_eq!(out[18..], [0xDF, 0xFF], "the flags survive a saturated inter-probing time");
    }

    #[test]
    fn errors_display() {
        assert_eq!(Error::Truncated.to_string(), "PDQ header truncated: need 20 bytes");
        assert_eq!(
            Error::ReservedPauseBy.to_string(),
            "PDQ header pause-by 0xffffffff is reserved for no pause"
        );
        assert_eq!(
            Error::ReservedDeadline.to_string(),
            "PDQ header deadline 0xffffffff is reserved for no deadline"
        );
        assert_eq!(
            Error::InterProbeTooLarge(9000).to_string(),
            "PDQ header inter-probing time 9000 is above the 13-bit maximum 8191"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(Error::Truncated);
        assert!(boxed.source().is_none());
    }

    #[test]
    fn into_inner_and_as_ref_return_the_buffer() {
        let p = Packet::new_unchecked(&SYN[..]);
        assert_eq!(p.as_ref(), &SYN[..]);
        assert_eq!(p.into_inner(), &SYN[..]);
    }

    #[test]
    #[should_panic]
    fn getter_on_short_unchecked_buffer_panics() {
        let _ = Packet::new_unchecked(&SYN[..19]).inter_probe();
    }

    #[test]
    #[should_panic]
    fn emit_into_short_buffer_panics() {
        let mut out = [0u8; 19];
        syn_repr().emit(&mut Packet::new_unchecked(&mut out[..]));
    }

    #[test]
    fn encode_rate_truncates_keeps_positive_and_saturates() {
        assert_eq!(encode_rate(0), 0);
        assert_eq!(encode_rate(1), 1, "a slow flow is not a paused one");
        assert_eq!(encode_rate(999), 1);
        assert_eq!(encode_rate(1_000), 1);
        assert_eq!(encode_rate(1_999), 1);
        assert_eq!(encode_rate(2_000), 2);
        assert_eq!(encode_rate(GBPS), 125_000);
        assert_eq!(encode_rate(100 * GBPS), 12_500_000);
        assert_eq!(encode_rate(decode_rate(u32::MAX)), u32::MAX);
        assert_eq!(encode_rate(decode_rate(u32::MAX) + 1_000), u32::MAX);
        assert_eq!(encode_rate(u64::MAX), u32::MAX);
    }

    #[test]
    fn decode_rate_examples() {
        assert_eq!(decode_rate(0), 0);
        assert_eq!(decode_rate(125_000), GBPS);
        assert_eq!(decode_rate(u32::MAX), 4_294_967_295_000);
    }

    #[test]
    fn decode_then_encode_is_identity_at_the_edges() {
        for value in (0..=1_000u32).chain(u32::MAX - 1_000..=u32::MAX) {
            assert_eq!(encode_rate(decode_rate(value)), value);
        }
    }

    fn any_valid_repr() -> impl Strategy<Value = Repr> {
        (
            any::<u32>(),
            proptest::option::of(0..=MAX_SWITCH_ID),
            proptest::option::of(0..=MAX_DEADLINE),
            any::<u32>(),
            any::<u16>(),
            0..=INTER_PROBE_MAX,
            any::<[bool; 3]>(),
        )
            .prop_map(|(rate, pause_by, deadline, expected_time, rtt, inter_probe, [probe, syn, fin])| Repr {
                rate,
                pause_by,
                deadline,
                expected_time,
                rtt,
                inter_probe,
                probe,
                syn,
                fin,
            })
    }

    /// Rates from 0 to past the field's ceiling, biased to small ones.
    fn any_rate() -> impl Strategy<Value = u64> {
        prop_oneof![0..10_000u64, 0..5_000_000_000_000u64, any::<u64>()]
    }

    proptest! {
        #[test]
        fn valid_repr_emits_and_parses_back(repr in any_valid_repr(), extra in 0..8usize) {
            prop_assert_eq!(repr.validate(), Ok(()));
            let mut buf = vec![0u8; HEADER_LEN + extra];
            repr.emit(&mut Packet::new_unchecked(&mut buf[..]));
            let packet = Packet::new_checked(&buf[..]).unwrap();
            prop_assert_eq!(Repr::parse(&packet), Ok(repr));
        }

        #[test]
        fn any_bytes_parse_or_error_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let result = Repr::parse(&Packet::new_unchecked(&bytes[..]));
            // Oracle: too short is the only error, else a valid header that emits the same bytes.
            if bytes.len() < HEADER_LEN {
                prop_assert_eq!(result, Err(Error::Truncated));
            } else {
                let repr = result.unwrap();
                prop_assert_eq!(repr.validate(), Ok(()));
                let mut out = [0u8; HEADER_LEN];
                repr.emit(&mut Packet::new_unchecked(&mut out[..]));
                prop_assert_eq!(&out[..], &bytes[..HEADER_LEN]);
            }
        }

        #[test]
        fn encode_rate_within_a_unit_below_and_zero_only_for_zero(rate in any_rate()) {
            let value = encode_rate(rate);
            prop_assert_eq!(value == 0, rate == 0);
            if rate > decode_rate(u32::MAX) {
                prop_assert_eq!(value, u32::MAX);
            } else if rate >= RATE_UNIT_BYTES_PER_SEC {
                prop_assert!(decode_rate(value) <= rate && rate - decode_rate(value) < RATE_UNIT_BYTES_PER_SEC);
            }
        }

        #[test]
        fn encode_rate_is_monotone(a in any_rate(), b in any_rate()) {
            prop_assert!(encode_rate(a.min(b)) <= encode_rate(a.max(b)));
        }
    }
}
