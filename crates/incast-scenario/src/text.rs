//! The text of a file (a scenario, a trace, a graph file): its bytes as UTF-8. A leaf of the
//! scenario modules.

/// The text of a file's bytes: UTF-8, with a leading byte-order mark dropped (editors on Windows
/// write one). The error says where the first bad byte is, never what the text around it says.
pub(crate) fn utf8_text(bytes: &[u8]) -> Result<&str, String> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    std::str::from_utf8(body).map_err(|e| {
        // The offset counts from the start of the file, byte-order mark included.
        let at = e.valid_up_to() + (bytes.len() - body.len());
        format!(
            "not UTF-8 text: invalid byte 0x{:02X} at offset {at}",
            bytes[at]
        )
    })
}
