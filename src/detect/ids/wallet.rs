//! MAC addresses and crypto wallet addresses.
//!
//! BTC: legacy and P2SH addresses are base58check (a version byte 0x00 or 0x05, the 20-byte hash,
//! the first four bytes of SHA-256(SHA-256(payload)); ring's SHA-256), segwit addresses bech32 or
//! bech32m (BIP 173 / BIP 350 checksum). ETH: `0x` + 40 hex; the EIP-55 mixed-case checksum needs
//! Keccak-256, which no dependency provides, so ETH addresses are taken only with a cue or key.

/// Six hex pairs joined by `:` (leading zeros may be dropped) or `-`, or three dotted quads
/// (Cisco); not the all-zero or broadcast address.
pub(super) fn mac(c: &[u8]) -> bool {
    let hex: Vec<u8> = c.iter().copied().filter(u8::is_ascii_hexdigit).collect();
    let groups: Vec<&[u8]> = c.split(|&b| b == b':').collect();
    let shape = match c.len() {
        17 if c[2] == b'-' => (0..5).all(|i| c[2 + 3 * i] == b'-'),
        14 if c[4] == b'.' => c[9] == b'.',
        // Colon-separated groups of one or two hex digits (`arp` on macOS drops leading zeros).
        _ => {
            groups.len() == 6
                && groups
                    .iter()
                    .all(|g| (1..=2).contains(&g.len()) && g.iter().all(u8::is_ascii_hexdigit))
                && groups.iter().filter(|g| g.len() == 2).count() >= 3
        }
    };
    shape
        && hex.len() >= 6
        && !hex.iter().all(|&h| h == b'0')
        && !hex.iter().all(|&h| h.eq_ignore_ascii_case(&b'f'))
}

const BASE58: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// A BTC address: base58check (starting `1` or `3`, 26-35 characters) or bech32 (`bc1`).
pub(super) fn btc(c: &[u8]) -> bool {
    match c.first() {
        Some(b'1' | b'3') if (26..=35).contains(&c.len()) => base58check(c),
        Some(b'b' | b'B') => bech32(c),
        _ => false,
    }
}

fn base58check(c: &[u8]) -> bool {
    // Big-endian base-256 digits of the base58 number; 25 bytes for an address.
    let mut bytes = [0u8; 25];
    for &ch in c {
        let Some(mut carry) = BASE58.iter().position(|&b| b == ch).map(|v| v as u32) else {
            return false;
        };
        for byte in bytes.iter_mut().rev() {
            carry += u32::from(*byte) * 58;
            *byte = (carry & 0xff) as u8;
            carry >>= 8;
        }
        if carry != 0 {
            return false;
        }
    }
    let leading_ones = c.iter().take_while(|&&b| b == b'1').count();
    let leading_zeros = bytes.iter().take_while(|&&b| b == 0).count();
    if leading_ones != leading_zeros {
        return false;
    }
    if !matches!(bytes[0], 0x00 | 0x05) {
        return false;
    }
    let first = ring::digest::digest(&ring::digest::SHA256, &bytes[..21]);
    let second = ring::digest::digest(&ring::digest::SHA256, first.as_ref());
    second.as_ref()[..4] == bytes[21..]
}

const BECH32: &[u8; 32] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn bech32(c: &[u8]) -> bool {
    let lower: Vec<u8> = c.iter().map(u8::to_ascii_lowercase).collect();
    if !(c.iter().all(|b| !b.is_ascii_uppercase()) || c.iter().all(|b| !b.is_ascii_lowercase())) {
        return false;
    }
    let Some(rest) = lower.strip_prefix(b"bc1") else {
        return false;
    };
    if rest.len() != 39 && rest.len() != 59 {
        // bc1 + 39 (P2WPKH, 42 total) or 59 (P2WSH / taproot, 62 total).
        return false;
    }
    let mut values = Vec::with_capacity(rest.len() + 5);
    values.extend([3u8, 3, 0, 2, 3]); // hrp "bc" expanded: high bits, 0, low bits
    for &ch in rest {
        let Some(v) = BECH32.iter().position(|&b| b == ch) else {
            return false;
        };
        values.push(v as u8);
    }
    let poly = polymod(&values);
    poly == 1 || poly == 0x2bc8_30a3
}

fn polymod(values: &[u8]) -> u32 {
    const GEN: [u32; 5] = [
        0x3b6a_57b2,
        0x2650_8e6d,
        0x1ea1_19fa,
        0x3d42_33dd,
        0x2a14_62b3,
    ];
    let mut chk: u32 = 1;
    for &v in values {
        let top = chk >> 25;
        chk = ((chk & 0x1ff_ffff) << 5) ^ u32::from(v);
        for (i, g) in GEN.iter().enumerate() {
            if (top >> i) & 1 == 1 {
                chk ^= g;
            }
        }
    }
    chk
}

/// `0x` + 40 hex digits, not all one digit.
pub(super) fn eth(c: &[u8]) -> bool {
    c.len() == 42
        && c.starts_with(b"0x")
        && c[2..].iter().all(u8::is_ascii_hexdigit)
        && !c[2..].iter().all(|&h| h == c[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert!(mac(b"00:1A:2B:3C:4D:5E"));
        assert!(mac(b"00-1a-2b-3c-4d-5e"));
        assert!(mac(b"001a.2b3c.4d5e"));
        assert!(!mac(b"00:1A-2B:3C:4D:5E"));
        assert!(mac(b"59:e:9e:e3:29:da"));
        assert!(!mac(b"1:2:3:4:5:6"));
        assert!(!mac(b"ff:ff:ff:ff:ff:ff"));
        // The genesis block address and a P2SH example (BIP 13).
        assert!(btc(b"1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"));
        assert!(!btc(b"1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"));
        assert!(btc(b"3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"));
        // A bech32 (P2WPKH) and a bech32m (BIP 350, taproot) address.
        assert!(btc(b"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"));
        assert!(!btc(b"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr"));
        assert!(btc(
            b"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"
        ));
        assert!(eth(b"0x52908400098527886E0F7030069857D2E4169EE7"));
    }
}
