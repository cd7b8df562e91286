//! Fuzz target for the PDQ scheduling header codec (PDQ, SIGCOMM 2012, Section 3.1).
//!
//! On arbitrary bytes: `Packet::new_checked` and `Repr::parse` must not panic, and every header
//! that parses must emit back to the same 20 bytes and parse again to the same `Repr`.

#![no_main]

use incast_wire::pdq::{Error, Packet, Repr, HEADER_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let packet = match Packet::new_checked(data) {
        Ok(packet) => packet,
        Err(e) => {
            assert_eq!(e, Error::Truncated);
            assert!(data.len() < HEADER_LEN);
            // `parse` must also refuse a short buffer through an unchecked view, not panic.
            assert_eq!(Repr::parse(&Packet::new_unchecked(data)), Err(Error::Truncated));
            return;
        }
    };
    let Ok(repr) = Repr::parse(&packet) else {
        return;
    };
    assert_eq!(repr.validate(), Ok(()));

    let mut out = [0u8; HEADER_LEN];
    repr.emit(&mut Packet::new_unchecked(&mut out[..]));
    assert_eq!(&out[..], &data[..HEADER_LEN]);
    assert_eq!(Repr::parse(&Packet::new_unchecked(&out[..])), Ok(repr));
});
