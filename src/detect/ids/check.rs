//! The check digits and shape rules of the national identifiers, each from its specification.
//!
//! Every function takes the identifier with separators removed, upper-cased ASCII, and says
//! whether it is well-formed and its check digit(s) agree. None allocates.

/// UK NHS number: 10 digits, weights 10..2 over the first nine, check = 11 - sum mod 11 (11 → 0,
/// 10 never issued). NHS Data Dictionary, "NHS number".
pub(super) fn nhs(n: &[u8]) -> bool {
    if n.len() != 10 || !all_digits(n) {
        return false;
    }
    let sum: u32 = (0..9).map(|i| d(n[i]) * (10 - i as u32)).sum();
    let check = match 11 - sum % 11 {
        11 => 0,
        10 => return false,
        c => c,
    };
    check == d(n[9])
}

/// Verhoeff check (Aadhaar): 12 digits, the first 2-9. UIDAI, "Aadhaar number structure".
pub(super) fn aadhaar(n: &[u8]) -> bool {
    n.len() == 12 && all_digits(n) && n[0] >= b'2' && verhoeff(n)
}

fn verhoeff(n: &[u8]) -> bool {
    const D: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const P: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let mut c = 0u8;
    for (i, &b) in n.iter().rev().enumerate() {
        c = D[usize::from(c)][usize::from(P[i % 8][usize::from(b - b'0')])];
    }
    c == 0
}

/// Luhn over ASCII digits.
pub(super) fn luhn(n: &[u8]) -> bool {
    let mut sum = 0;
    for (i, &b) in n.iter().rev().enumerate() {
        let mut v = d(b);
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

/// ABA routing number: 9 digits, weights 3 7 1, sum mod 10 = 0; the first two digits a Federal
/// Reserve routing symbol (00-12, 21-32, 61-72, 80). ABA / Fed, "Routing number policy".
pub(super) fn aba(n: &[u8]) -> bool {
    if n.len() != 9 || !all_digits(n) {
        return false;
    }
    let p = d(n[0]) * 10 + d(n[1]);
    if !matches!(p, 0..=12 | 21..=32 | 61..=72 | 80) {
        return false;
    }
    let w = [3, 7, 1];
    (0..9).map(|i| d(n[i]) * w[i % 3]).sum::<u32>() % 10 == 0
}

/// Canadian SIN: 9 digits, Luhn; the first digit is never 8 (0 is kept: published examples such
/// as 046 454 286 use it).
pub(super) fn ca_sin(n: &[u8]) -> bool {
    n.len() == 9 && all_digits(n) && n[0] != b'8' && luhn(n)
}

/// Brazilian CPF: 11 digits, two mod-11 check digits (weights 10..2, then 11..2); not one digit
/// repeated. Receita Federal.
pub(super) fn cpf(n: &[u8]) -> bool {
    if n.len() != 11 || !all_digits(n) || n.iter().all(|&c| c == n[0]) {
        return false;
    }
    let dv = |len: usize| {
        let s: u32 = (0..len)
            .map(|i| d(n[i]) * (len as u32 + 1 - i as u32))
            .sum();
        let r = s * 10 % 11;
        if r == 10 { 0 } else { r }
    };
    dv(9) == d(n[9]) && dv(10) == d(n[10])
}

/// Brazilian CNPJ: 14 digits, two mod-11 check digits with weights 5..2,9..2 and 6..2,9..2.
pub(super) fn cnpj(n: &[u8]) -> bool {
    if n.len() != 14 || !all_digits(n) || n.iter().all(|&c| c == n[0]) {
        return false;
    }
    let dv = |len: usize| {
        let w: &[u32] = if len == 12 {
            &[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
        } else {
            &[6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
        };
        let s: u32 = (0..len).map(|i| d(n[i]) * w[i]).sum();
        let r = s % 11;
        if r < 2 { 0 } else { 11 - r }
    };
    dv(12) == d(n[12]) && dv(13) == d(n[13])
}

const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// Spanish DNI/NIF: 8 digits and the letter of their value mod 23.
pub(super) fn es_dni(n: &[u8]) -> bool {
    n.len() == 9 && all_digits(&n[..8]) && DNI_LETTERS[(num(&n[..8]) % 23) as usize] == n[8]
}

/// Spanish NIE: X/Y/Z (0/1/2), 7 digits, the letter of the 8-digit value mod 23.
pub(super) fn es_nie(n: &[u8]) -> bool {
    if n.len() != 9 || !all_digits(&n[1..8]) {
        return false;
    }
    let lead = match n[0] {
        b'X' => 0,
        b'Y' => 1,
        b'Z' => 2,
        _ => return false,
    };
    DNI_LETTERS[((lead * 10_000_000 + num(&n[1..8])) % 23) as usize] == n[8]
}

/// Italian codice fiscale: 6 letters, 2 digits, month letter, 2 digits, a letter, 3 digits,
/// the check letter (odd/even position tables, sum mod 26). Omocodia (digits replaced by
/// letters) is not read. DM 23/12/1976.
pub(super) fn it_fiscal(n: &[u8]) -> bool {
    if n.len() != 16 {
        return false;
    }
    let shape = n[..6].iter().all(u8::is_ascii_uppercase)
        && all_digits(&n[6..8])
        && b"ABCDEHLMPRST".contains(&n[8])
        && all_digits(&n[9..11])
        && n[11].is_ascii_uppercase()
        && all_digits(&n[12..15])
        && n[15].is_ascii_uppercase();
    if !shape {
        return false;
    }
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let sum: u32 = n[..15]
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let v = if c.is_ascii_digit() {
                u32::from(c - b'0')
            } else {
                u32::from(c - b'A')
            };
            // Positions are 1-based: odd positions are even indices.
            if i % 2 == 0 { ODD[v as usize] } else { v }
        })
        .sum();
    u32::from(n[15] - b'A') == sum % 26
}

/// French NIR (numéro de sécurité sociale): sex 1-4/7/8, year, month 01-12 (or 20-42, 50-99 for
/// special registrations), department, commune, order, then key = 97 - (first 13 mod 97).
/// Corsican departments (2A/2B) are read as 19/18, per the INSEE rule.
pub(super) fn fr_nir(n: &[u8]) -> bool {
    if n.len() != 15 || !matches!(n[0], b'1' | b'2' | b'3' | b'4' | b'7' | b'8') {
        return false;
    }
    let mut body = [0u8; 13];
    body.copy_from_slice(&n[..13]);
    let corsica = match (body[5], body[6]) {
        (b'2', b'A') => Some(1_000_000),
        (b'2', b'B') => Some(2_000_000),
        _ => None,
    };
    if corsica.is_some() {
        body[6] = b'0';
    }
    if !all_digits(&body) || !all_digits(&n[13..]) {
        return false;
    }
    let month = d(n[3]) * 10 + d(n[4]);
    if !matches!(month, 1..=12 | 20..=42 | 50..=99) {
        return false;
    }
    let mut v = num(&body);
    if let Some(c) = corsica {
        v -= c;
    }
    u64::from(97 - (v % 97) as u32) == num(&n[13..])
}

/// German Steuer-ID: 11 digits, no leading 0; in the first ten one digit appears two or three
/// times and the rest at most once; ISO 7064 MOD 11,10 check digit. BZSt.
pub(super) fn de_tax_id(n: &[u8]) -> bool {
    if n.len() != 11 || !all_digits(n) || n[0] == b'0' {
        return false;
    }
    let mut counts = [0u8; 10];
    for &c in &n[..10] {
        counts[usize::from(c - b'0')] += 1;
    }
    let multi = counts.iter().filter(|&&c| c >= 2).count();
    if multi != 1 || counts.iter().any(|&c| c > 3) {
        return false;
    }
    let mut product = 10;
    for &c in &n[..10] {
        let mut sum = (d(c) + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = sum * 2 % 11;
    }
    let check = (11 - product) % 10;
    check == d(n[10])
}

/// Chinese resident identity card: 17 digits + a digit or X, ISO 7064 MOD 11-2; region first
/// digit 1-8 and a plausible birth date (YYYYMMDD at 7-14). GB 11643-1999.
pub(super) fn cn_resident(n: &[u8]) -> bool {
    if n.len() != 18 || !all_digits(&n[..17]) || !(n[17].is_ascii_digit() || n[17] == b'X') {
        return false;
    }
    if !(b'1'..=b'8').contains(&n[0]) {
        return false;
    }
    let (y, m, dd) = (num(&n[6..10]), num(&n[10..12]), num(&n[12..14]));
    if !(1900..=2099).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&dd) {
        return false;
    }
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let s: u32 = (0..17).map(|i| d(n[i]) * W[i]).sum();
    b"10X98765432"[(s % 11) as usize] == n[17]
}

/// Australian TFN: 9 digits, weights 1 4 3 7 5 8 6 9 10, sum mod 11 = 0. ATO.
pub(super) fn au_tfn(n: &[u8]) -> bool {
    const W: [u32; 9] = [1, 4, 3, 7, 5, 8, 6, 9, 10];
    n.len() == 9 && all_digits(n) && (0..9).map(|i| d(n[i]) * W[i]).sum::<u32>() % 11 == 0
}

/// Australian Medicare card number: 10 digits (11 with the individual reference), the first
/// 2-6, the ninth the check of weights 1 3 7 9 1 3 7 9 mod 10.
pub(super) fn au_medicare(n: &[u8]) -> bool {
    const W: [u32; 8] = [1, 3, 7, 9, 1, 3, 7, 9];
    matches!(n.len(), 10 | 11)
        && all_digits(n)
        && (b'2'..=b'6').contains(&n[0])
        && (0..8).map(|i| d(n[i]) * W[i]).sum::<u32>() % 10 == d(n[8])
}

/// Singapore NRIC/FIN: S/T/F/G + 7 digits + check letter (weights 2 7 6 5 4 3 2, +4 for T and
/// G, mod 11). The M series (2022) uses another table and is not read.
pub(super) fn sg_nric(n: &[u8]) -> bool {
    if n.len() != 9 || !all_digits(&n[1..8]) || !n[8].is_ascii_uppercase() {
        return false;
    }
    const W: [u32; 7] = [2, 7, 6, 5, 4, 3, 2];
    let s: u32 = (0..7).map(|i| d(n[i + 1]) * W[i]).sum();
    let (offset, table): (u32, &[u8; 11]) = match n[0] {
        b'S' => (0, b"JZIHGFEDCBA"),
        b'T' => (4, b"JZIHGFEDCBA"),
        b'F' => (0, b"XWUTRQPNMLK"),
        b'G' => (4, b"XWUTRQPNMLK"),
        _ => return false,
    };
    table[((s + offset) % 11) as usize] == n[8]
}

/// UK National Insurance number: two prefix letters (not D F I Q U V; the second not O; not
/// BG GB KN NK NT TN ZZ), six digits, a suffix A-D. HMRC NIM39110.
pub(super) fn uk_nino(n: &[u8]) -> bool {
    if n.len() != 9 || !all_digits(&n[2..8]) || !(b'A'..=b'D').contains(&n[8]) {
        return false;
    }
    let (a, b) = (n[0], n[1]);
    a.is_ascii_uppercase()
        && b.is_ascii_uppercase()
        && !b"DFIQUV".contains(&a)
        && !b"DFIOQUV".contains(&b)
        && !matches!(
            &n[..2],
            b"BG" | b"GB" | b"KN" | b"NK" | b"NT" | b"TN" | b"ZZ"
        )
}

/// US ITIN: 9 digits, a leading 9, the fourth and fifth in 50-65, 70-88, 90-92 or 94-99. IRS.
pub(super) fn us_itin(n: &[u8]) -> bool {
    n.len() == 9
        && all_digits(n)
        && n[0] == b'9'
        && matches!(d(n[3]) * 10 + d(n[4]), 50..=65 | 70..=88 | 90..=92 | 94..=99)
}

/// US NPI: 10 digits, the first 1 or 2, Luhn over `80840` + the number. CMS.
pub(super) fn us_npi(n: &[u8]) -> bool {
    if n.len() != 10 || !all_digits(n) || !matches!(n[0], b'1' | b'2') {
        return false;
    }
    let mut buf = [0u8; 15];
    buf[..5].copy_from_slice(b"80840");
    buf[5..].copy_from_slice(n);
    luhn(&buf)
}

/// US Medicare Beneficiary Identifier: 11 characters, C A AN N A AN N A A N N, where A excludes
/// S L O I B Z. CMS, "MBI format".
pub(super) fn us_mbi(n: &[u8]) -> bool {
    if n.len() != 11 {
        return false;
    }
    let alpha = |c: u8| c.is_ascii_uppercase() && !b"SLOIBZ".contains(&c);
    let an = |c: u8| alpha(c) || c.is_ascii_digit();
    (b'1'..=b'9').contains(&n[0])
        && alpha(n[1])
        && an(n[2])
        && n[3].is_ascii_digit()
        && alpha(n[4])
        && an(n[5])
        && n[6].is_ascii_digit()
        && alpha(n[7])
        && alpha(n[8])
        && n[9].is_ascii_digit()
        && n[10].is_ascii_digit()
}

/// Indian PAN: 5 letters (the fourth the holder type: A B C F G H L J P T), 4 digits, a letter.
pub(super) fn in_pan(n: &[u8]) -> bool {
    n.len() == 10
        && n[..5].iter().all(u8::is_ascii_uppercase)
        && b"ABCFGHLJPT".contains(&n[3])
        && all_digits(&n[5..9])
        && n[9].is_ascii_uppercase()
}

fn all_digits(n: &[u8]) -> bool {
    n.iter().all(u8::is_ascii_digit)
}

fn d(b: u8) -> u32 {
    u32::from(b - b'0')
}

fn num(n: &[u8]) -> u64 {
    n.iter().fold(0, |v, &b| v * 10 + u64::from(b - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specification_examples() {
        assert!(nhs(b"9434765919"));
        assert!(!nhs(b"9434765918"));
        assert!(aadhaar(b"234123412346"));
        assert!(!aadhaar(b"234123412347"));
        assert!(aba(b"011000015"));
        assert!(!aba(b"011000016"));
        assert!(ca_sin(b"046454286"));
        assert!(!ca_sin(b"046454287"));
        assert!(cpf(b"52998224725"));
        assert!(!cpf(b"52998224726"));
        assert!(cnpj(b"11222333000181"));
        assert!(!cnpj(b"11222333000182"));
        assert!(es_dni(b"12345678Z"));
        assert!(!es_dni(b"12345678A"));
        assert!(es_nie(b"X1234567L"));
        assert!(!es_nie(b"X1234567A"));
        assert!(it_fiscal(b"RSSMRA85T10A562S"));
        assert!(!it_fiscal(b"RSSMRA85T10A562T"));
        assert!(fr_nir(b"255081416802538"));
        assert!(!fr_nir(b"255081416802539"));
        assert!(de_tax_id(b"86095742719"));
        assert!(!de_tax_id(b"86095742718"));
        assert!(cn_resident(b"11010519491231002X"));
        assert!(!cn_resident(b"110105194912310021"));
        assert!(au_tfn(b"123456782"));
        assert!(!au_tfn(b"123456783"));
        assert!(au_medicare(b"2123456701"));
        assert!(sg_nric(b"S1234567D"));
        assert!(!sg_nric(b"S1234567E"));
        assert!(uk_nino(b"AB123456C"));
        assert!(!uk_nino(b"BG123456C"));
        assert!(us_itin(b"912701234"));
        assert!(!us_itin(b"912401234"));
        assert!(us_npi(b"1234567893"));
        assert!(!us_npi(b"1234567894"));
        assert!(us_mbi(b"1EG4TE5MK73"));
        assert!(!us_mbi(b"1SG4TE5MK73"));
        assert!(in_pan(b"ABCPE1234F"));
        assert!(!in_pan(b"ABCDE1234F"));
    }
}
