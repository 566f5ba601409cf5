"""Character classes and word lists of the reference PTB pipeline, as data.

Copied from the behaviour specification (``PTB_BEHAVIOUR.md``, appendices A-D,
machine-readable in ``tests/fixtures/ptb_behaviour_lists.json``; a test checks
that the two agree).  Ranges are hexadecimal code points, ``"0041-005A 00AA"``;
every code point above U+FFFF, and every BMP code point in no class below, is
deleted by the reference (it separates tokens and prints nothing).
"""

from __future__ import annotations

__all__ = [
    "ABBR_ACRONYM",
    "ABBR_LETTER",
    "ABBR_NUMBER",
    "ABBR_SENTENCE",
    "ABBR_TITLE",
    "CASED",
    "LETTERS",
    "LOOKAHEAD_SPACES",
    "MARKS",
    "OWN",
    "OWN_NUMBER_INNER",
    "OWN_RUNS",
    "SPACE_LIKE",
    "STARTERS",
    "STARTER_ABBREVIATIONS",
    "UNICODE_HYPHENS",
    "UPPERCASE",
]

#: Word characters: letters and digits (a run of them is one token).
LETTERS = (
    "0030-0039 0041-005A 0061-007A 00AA 00B5 00BA 00C0-00D6 00D8-00F6 00F8-02C1 02C6-02D1 "
    "02E0-02E4 02EC 02EE 0370-0374 0376-0377 037A-037D 0386 0388-038A 038C 038E-03A1 03A4-03F5 "
    "03F7-0481 048A-0527 0531-0556 0559 0561-0587 05D0-05EA 05F0-05F2 0620-064A 0660-0669 "
    "066E-066F 0671-06D3 06D5 06E5-06E6 06EE-06FC 06FF 0710 0712-072F 074D-07A5 07B1 07C0-07EA "
    "07F4-07F5 07FA 0800-0815 081A 0824 0828 0840-0858 08A0 08A2-08AC 0904-0939 093D 0950 "
    "0958-0961 0966-096F 0971-0977 0979-097F 0985-098C 098F-0990 0993-09A8 09AA-09B0 09B2 "
    "09B6-09B9 09BD 09CE 09DC-09DD 09DF-09E1 09E6-09F1 0A05-0A0A 0A0F-0A10 0A13-0A28 0A2A-0A30 "
    "0A32-0A33 0A35-0A36 0A38-0A39 0A59-0A5C 0A5E 0A66-0A6F 0A72-0A74 0A85-0A8D 0A8F-0A91 "
    "0A93-0AA8 0AAA-0AB0 0AB2-0AB3 0AB5-0AB9 0ABD 0AD0 0AE0-0AE1 0AE6-0AEF 0B05-0B0C 0B0F-0B10 "
    "0B13-0B28 0B2A-0B30 0B32-0B33 0B35-0B39 0B3D 0B5C-0B5D 0B5F-0B61 0B66-0B6F 0B71 0B83 "
    "0B85-0B8A 0B8E-0B90 0B92-0B95 0B99-0B9A 0B9C 0B9E-0B9F 0BA3-0BA4 0BA8-0BAA 0BAE-0BB9 0BD0 "
    "0BE6-0BEF 0C05-0C0C 0C0E-0C10 0C12-0C28 0C2A-0C33 0C35-0C39 0C3D 0C58-0C59 0C60-0C61 "
    "0C66-0C6F 0C85-0C8C 0C8E-0C90 0C92-0CA8 0CAA-0CB3 0CB5-0CB9 0CBD 0CDE 0CE0-0CE1 0CE6-0CEF "
    "0CF1-0CF2 0D05-0D0C 0D0E-0D10 0D12-0D3A 0D3D 0D4E 0D60-0D61 0D66-0D6F 0D7A-0D7F 0D85-0D96 "
    "0D9A-0DB1 0DB3-0DBB 0DBD 0DC0-0DC6 0E01-0E30 0E32-0E33 0E40-0E46 0E50-0E59 0E81-0E82 0E84 "
    "0E87-0E88 0E8A 0E8D 0E94-0E97 0E99-0E9F 0EA1-0EA3 0EA5 0EA7 0EAA-0EAB 0EAD-0EB0 0EB2-0EB3 "
    "0EBD 0EC0-0EC4 0EC6 0ED0-0ED9 0EDC-0EDF 0F00 0F20-0F29 0F40-0F47 0F49-0F6C 0F88-0F8C "
    "1000-102A 103F-1049 1050-1055 105A-105D 1061 1065-1066 106E-1070 1075-1081 108E 1090-1099 "
    "10A0-10C5 10C7 10CD 10D0-10FA 10FC-1248 124A-124D 1250-1256 1258 125A-125D 1260-1288 "
    "128A-128D 1290-12B0 12B2-12B5 12B8-12BE 12C0 12C2-12C5 12C8-12D6 12D8-1310 1312-1315 "
    "1318-135A 1380-138F 13A0-13F4 1401-166C 166F-167F 1681-169A 16A0-16EA 1700-170C 170E-1711 "
    "1720-1731 1740-1751 1760-176C 176E-1770 1780-17B3 17D7 17DC 17E0-17E9 1810-1819 1820-1877 "
    "1880-18A8 18AA 18B0-18F5 1900-191C 1946-196D 1970-1974 1980-19AB 19C1-19C7 19D0-19D9 "
    "1A00-1A16 1A20-1A54 1A80-1A89 1A90-1A99 1AA7 1B05-1B33 1B45-1B4B 1B50-1B59 1B83-1BA0 "
    "1BAE-1BE5 1C00-1C23 1C40-1C49 1C4D-1C7D 1CE9-1CEC 1CEE-1CF1 1CF5-1CF6 1D00-1DBF 1E00-1F15 "
    "1F18-1F1D 1F20-1F45 1F48-1F4D 1F50-1F57 1F59 1F5B 1F5D 1F5F-1F7D 1F80-1FB4 1FB6-1FBC 1FBE "
    "1FC2-1FC4 1FC6-1FCC 1FD0-1FD3 1FD6-1FDB 1FE0-1FEC 1FF2-1FF4 1FF6-1FFC 2071 207F 2090-209C "
    "2102 2107 210A-2113 2115 2119-211D 2124 2126 2128 212A-212D 212F-2139 213C-213F 2145-2149 "
    "214E 2183-2184 2C00-2C2E 2C30-2C5E 2C60-2CE4 2CEB-2CEE 2CF2-2CF3 2D00-2D25 2D27 2D2D "
    "2D30-2D67 2D6F 2D80-2D96 2DA0-2DA6 2DA8-2DAE 2DB0-2DB6 2DB8-2DBE 2DC0-2DC6 2DC8-2DCE "
    "2DD0-2DD6 2DD8-2DDE 2E2F 3005-3006 3031-3035 303B-303C 3041-3096 309D-309F 30A1-30FA "
    "30FC-30FF 3105-312D 3131-318E 31A0-31BA 31F0-31FF 3400-4DB5 4E00-9FCC A000-A48C A4D0-A4FD "
    "A500-A60C A610-A62B A640-A66E A67F-A697 A6A0-A6E5 A717-A71F A722-A788 A78B-A78E A790-A793 "
    "A7A0-A7AA A7F8-A801 A803-A805 A807-A80A A80C-A822 A840-A873 A882-A8B3 A8D0-A8D9 A8F2-A8F7 "
    "A8FB A900-A925 A930-A946 A960-A97C A984-A9B2 A9CF-A9D9 AA00-AA28 AA40-AA42 AA44-AA4B "
    "AA50-AA59 AA60-AA76 AA7A AA80-AAAF AAB1 AAB5-AAB6 AAB9-AABD AAC0 AAC2 AADB-AADD AAE0-AAEA "
    "AAF2-AAF4 AB01-AB06 AB09-AB0E AB11-AB16 AB20-AB26 AB28-AB2E ABC0-ABE2 ABF0-ABF9 AC00-D7A3 "
    "D7B0-D7C6 D7CB-D7FB F900-FA6D FA70-FAD9 FB00-FB06 FB13-FB17 FB1D FB1F-FB28 FB2A-FB36 "
    "FB38-FB3C FB3E FB40-FB41 FB43-FB44 FB46-FBB1 FBD3-FD3D FD50-FD8F FD92-FDC7 FDF0-FDFB "
    "FE70-FE74 FE76-FEFC FF10-FF19 FF21-FF3A FF41-FF5A FF66-FFBE FFC2-FFC7 FFCA-FFCF FFD2-FFD7 "
    "FFDA-FFDC "
)

#: Combining marks and modifier symbols: join a preceding letter, not a preceding digit.
MARKS = (
    "02C2-02C5 02D2-02DF 02E5-02EB 02ED 02EF-036F 0375 0378-0379 0384-0385 03F6 0483-0487 "
    "055A-055F 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 0615-061A 064B-065E 0670 06D6-06E4 "
    "06E7-06ED 06FD-06FE 070F 0711 0730-074C 07A6-07B0 07EB-07F3 0900-0903 093C 093E-094E "
    "0951-0955 0962-0963 0981-0983 09BC 09BE-09C4 09C7-09C8 09CB-09CD 09D7 09E2-09E3 0A01-0A03 "
    "0A3C 0A3E-0A4F 0A81-0A83 0ABC 0ABE-0ACF 0B82 0BBE-0BC2 0BC6-0BC8 0BCA-0BCD 0C01-0C03 "
    "0C3E-0C56 0D3E-0D44 0D46-0D48 0E31 0E34-0E3A 0E47-0E4E 0EB1 0EB4-0EBC 0EC8-0ECD "
)

#: U+058A, U+2010, U+2011: join two word parts like "-", deleted elsewhere.
UNICODE_HYPHENS = "058A 2010-2011 "

#: Symbols that are always a token of their own, never combining.
OWN = (
    "0024-0026 003B 003D 005C 005E 007C 007E 00A1 00A5-00A9 00AC 00AE-00B1 00B4 00B6-00B8 00BF "
    "00D7 00F7 037E 0387 0589 05BE 05C0 05C3 05C6 05F3-05F4 0600-0603 0606-060C 0614 061B "
    "061E-061F 066A 066D 06D4 0700-070D 07F6-07F8 0964-0965 0E3F 0E4F 1FBD 2016-2017 2020-2023 "
    "2030-2038 203B 203E-2042 207A-207E 208A-208E 20A4 2100-2101 2103-2106 2108-2109 2114 "
    "2116-2118 211E-2123 2125 2127 2129 212E 213A-213B 2140-2144 214A-214D 214F 2155-215E "
    "2190-2BFF 3001-3002 3012 30FB FF01-FF0F FF1A-FF20 FF3B-FF40 FF5B-FF65 FFE0-FFE1 FFE5-FFE6 "
)

#: Symbols that are their own token, a run of the same one being one token.
OWN_RUNS = "0027 002A 003C 003E 0060 00B2-00B3 00B9 201A 201E-201F 2070 2074-2079 2080-2089 "

#: ",", ":", U+2044: their own token, but kept inside a number ("1,000").
OWN_NUMBER_INNER = "002C 003A 2044 "

#: Separators that print nothing (spaces and silent separators).
SPACE_LIKE = "0000 0009 0020 007F 00A0 2000-200B 200E-200F 3000 FEFF "

#: Space characters for the look-ahead rules (besides the line end).
LOOKAHEAD_SPACES = "0009 0020 00A0 2000-200A 3000 "

#: Cased characters for the final-sigma rule (appendix C).
CASED = (
    "0043-005A 0063-007A 00B5 00C0-00D6 00D8-00F6 00F8-01BA 01BC-01BF 01C4-0293 0295-02B8 "
    "02C0-02C1 02E0-02E4 0370-0373 0376-0377 037A-037D 0386 0388-038A 038C 038E-03A1 03A3-03F5 "
    "03F7-0481 048A-0527 0531-0556 0561-0587 10A0-10C5 10C7 10CD 10D0-10FA 10FD-10FF 13A0-13F4 "
    "1D00-1D61 1D6B-1D77 1D79-1D9A 1E00-1F15 1F18-1F1D 1F20-1F45 1F48-1F4D 1F50-1F57 1F59 1F5B "
    "1F5D 1F5F-1F7D 1F80-1FB4 1FB6-1FBC 1FBE 1FC2-1FC4 1FC6-1FCC 1FD0-1FD3 1FD6-1FDB 1FE0-1FEC "
    "1FF2-1FF4 1FF6-1FFC 2102 2107 210A-2113 2115 2119-211D 2124 2126 2128 212A-212D 212F-2134 "
    "2139 213C-213F 2145-2149 214E 2183-2184 2C00-2C2E 2C30-2C5E 2C60-2C7B 2C7E-2CE4 2CEB-2CEE "
    "2CF2-2CF3 2D00-2D25 2D27 2D2D A640-A66D A680-A697 A722-A76F A771-A787 A78B-A78E A790-A793 "
    "A7A0-A7AA A7FA FB00-FB06 FB13-FB17 FF21-FF3A FF41-FF5A "
)

#: Upper-case letters (appendix D).
UPPERCASE = (
    "0041-005A 00C0-00D6 00D8-00DE 0100 0102 0104 0106 0108 010A 010C 010E 0110 0112 0114 0116 "
    "0118 011A 011C 011E 0120 0122 0124 0126 0128 012A 012C 012E 0130 0132 0134 0136 0139 013B "
    "013D 013F 0141 0143 0145 0147 014A 014C 014E 0150 0152 0154 0156 0158 015A 015C 015E 0160 "
    "0162 0164 0166 0168 016A 016C 016E 0170 0172 0174 0176 0178-0179 017B 017D 0181-0182 0184 "
    "0186-0187 0189-018B 018E-0191 0193-0194 0196-0198 019C-019D 019F-01A0 01A2 01A4 01A6-01A7 "
    "01A9 01AC 01AE-01AF 01B1-01B3 01B5 01B7-01B8 01BC 01C4 01C7 01CA 01CD 01CF 01D1 01D3 01D5 "
    "01D7 01D9 01DB 01DE 01E0 01E2 01E4 01E6 01E8 01EA 01EC 01EE 01F1 01F4 01F6-01F8 01FA 01FC "
    "01FE 0200 0202 0204 0206 0208 020A 020C 020E 0210 0212 0214 0216 0218 021A 021C 021E 0220 "
    "0222 0224 0226 0228 022A 022C 022E 0230 0232 023A-023B 023D-023E 0241 0243-0246 0248 024A "
    "024C 024E 0370 0372 0376 0386 0388-038A 038C 038E-038F 0391-03A1 03A3-03AB 03CF 03D2-03D4 "
    "03D8 03DA 03DC 03DE 03E0 03E2 03E4 03E6 03E8 03EA 03EC 03EE 03F4 03F7 03F9-03FA 03FD-042F "
    "0460 0462 0464 0466 0468 046A 046C 046E 0470 0472 0474 0476 0478 047A 047C 047E 0480 048A "
    "048C 048E 0490 0492 0494 0496 0498 049A 049C 049E 04A0 04A2 04A4 04A6 04A8 04AA 04AC 04AE "
    "04B0 04B2 04B4 04B6 04B8 04BA 04BC 04BE 04C0-04C1 04C3 04C5 04C7 04C9 04CB 04CD 04D0 04D2 "
    "04D4 04D6 04D8 04DA 04DC 04DE 04E0 04E2 04E4 04E6 04E8 04EA 04EC 04EE 04F0 04F2 04F4 04F6 "
    "04F8 04FA 04FC 04FE 0500 0502 0504 0506 0508 050A 050C 050E 0510 0512 0514 0516 0518 051A "
    "051C 051E 0520 0522 0524 0526 0531-0556 10A0-10C5 10C7 10CD 1E00 1E02 1E04 1E06 1E08 1E0A "
    "1E0C 1E0E 1E10 1E12 1E14 1E16 1E18 1E1A 1E1C 1E1E 1E20 1E22 1E24 1E26 1E28 1E2A 1E2C 1E2E "
    "1E30 1E32 1E34 1E36 1E38 1E3A 1E3C 1E3E 1E40 1E42 1E44 1E46 1E48 1E4A 1E4C 1E4E 1E50 1E52 "
    "1E54 1E56 1E58 1E5A 1E5C 1E5E 1E60 1E62 1E64 1E66 1E68 1E6A 1E6C 1E6E 1E70 1E72 1E74 1E76 "
    "1E78 1E7A 1E7C 1E7E 1E80 1E82 1E84 1E86 1E88 1E8A 1E8C 1E8E 1E90 1E92 1E94 1E9E 1EA0 1EA2 "
    "1EA4 1EA6 1EA8 1EAA 1EAC 1EAE 1EB0 1EB2 1EB4 1EB6 1EB8 1EBA 1EBC 1EBE 1EC0 1EC2 1EC4 1EC6 "
    "1EC8 1ECA 1ECC 1ECE 1ED0 1ED2 1ED4 1ED6 1ED8 1EDA 1EDC 1EDE 1EE0 1EE2 1EE4 1EE6 1EE8 1EEA "
    "1EEC 1EEE 1EF0 1EF2 1EF4 1EF6 1EF8 1EFA 1EFC 1EFE 1F08-1F0F 1F18-1F1D 1F28-1F2F 1F38-1F3F "
    "1F48-1F4D 1F59 1F5B 1F5D 1F5F 1F68-1F6F 1FB8-1FBB 1FC8-1FCB 1FD8-1FDB 1FE8-1FEC 1FF8-1FFB "
    "2102 2107 210B-210D 2110-2112 2115 2119-211D 2124 2126 2128 212A-212D 2130-2133 213E-213F "
    "2145 2160-216F 2183 24B6-24CF 2C00-2C2E 2C60 2C62-2C64 2C67 2C69 2C6B 2C6D-2C70 2C72 2C75 "
    "2C7E-2C80 2C82 2C84 2C86 2C88 2C8A 2C8C 2C8E 2C90 2C92 2C94 2C96 2C98 2C9A 2C9C 2C9E 2CA0 "
    "2CA2 2CA4 2CA6 2CA8 2CAA 2CAC 2CAE 2CB0 2CB2 2CB4 2CB6 2CB8 2CBA 2CBC 2CBE 2CC0 2CC2 2CC4 "
    "2CC6 2CC8 2CCA 2CCC 2CCE 2CD0 2CD2 2CD4 2CD6 2CD8 2CDA 2CDC 2CDE 2CE0 2CE2 2CEB 2CED 2CF2 "
    "A640 A642 A644 A646 A648 A64A A64C A64E A650 A652 A654 A656 A658 A65A A65C A65E A660 A662 "
    "A664 A666 A668 A66A A66C A680 A682 A684 A686 A688 A68A A68C A68E A690 A692 A694 A696 A722 "
    "A724 A726 A728 A72A A72C A72E A732 A734 A736 A738 A73A A73C A73E A740 A742 A744 A746 A748 "
    "A74A A74C A74E A750 A752 A754 A756 A758 A75A A75C A75E A760 A762 A764 A766 A768 A76A A76C "
    "A76E A779 A77B A77D-A77E A780 A782 A784 A786 A78B A78D A790 A792 A7A0 A7A2 A7A4 A7A6 A7A8 "
    "A7AA FF21-FF3A "
)

#: Abbreviation class 'title' (appendix B): letter-case patterns, final period included.
ABBR_TITLE = (
    "[Aa][Dd][Jj].",
    "[Aa][Dd][Mm].",
    "[Aa][Dd][Vv].",
    "[Aa][Ll][Ee][Xx].",
    "[Aa][Ss][Ss][Oo][Cc].",
    "[Aa][Ss][Ss][Tt].",
    "[Aa][Tt][Tt][Yy].",
    "[Aa][Vv][Ee].",
    "[Bb][Rr][Ii][Gg].",
    "[Cc][Aa][Pp][Tt].",
    "[Cc][Ff].",
    "[Cc][Ii][Ee].",
    "[Cc][Mm][Dd][Rr].",
    "[Cc][Oo][Ll].",
    "[Cc][Oo][Mm][Dd][Rr].",
    "[Cc][Pp][Ll].",
    "[Dd][Ee][Pp][Tt].",
    "[Dd][Ee][Tt].",
    "[Dd][Rr].",
    "[Dd][Rr][Ss].",
    "[Ee][Ll][Ee][Cc].",
    "[Ee][Nn][Ss].",
    "[Ff][Tt].",
    "[Gg][Ee][Nn].",
    "[Gg][Oo][Vv].",
    "[Gg][Oo][Vv][Ss].",
    "[Hh][Oo][Nn].",
    "[Ii][Nn][Ss][Pp].",
    "[Ii][Nn][Vv][Tt].",
    "[Jj][Oo][Ss].",
    "[Ll][Ii][Ee][Uu][Tt].",
    "[Ll][Tt].",
    "[Mm][Aa][Jj].",
    "[Mm][Ll][Ll][Ee].",
    "[Mm][Mm][Ee].",
    "[Mm][Rr].",
    "[Mm][Rr][Ss].",
    "[Mm][Ss].",
    "[Mm][Ss][Gg][Rr].",
    "[Mm][Tt].",
    "[Mm]f[Gg].",
    "[Mm]t[Gg].",
    "[Nn][Aa][Tt][Ll].",
    "[Pp][Ff][Cc].",
    "[Pp][Hh].",
    "[Pp][Rr][Ee][Ss].",
    "[Pp][Rr][Oo][Ff].",
    "[Pp][Rr][Oo][Ff][Ss].",
    "[Pp][Vv][Tt].",
    "[Rr][Ee][Pp].",
    "[Rr][Ee][Pp][Ss].",
    "[Rr][Ee][Vv].",
    "[Ss][Ee][Nn].",
    "[Ss][Ee][Nn][Ss].",
    "[Ss][Ff][Cc].",
    "[Ss][Gg][Tt].",
    "[Ss][Pp][Cc].",
    "[Ss][Tt].",
    "[Ss][Tt][Ee].",
    "[Ss][Uu][Pp][Tt].",
    "[Tt][Rr][Ee][Aa][Ss].",
    "[Vv][Ss].",
    "[Ww][Mm].",
)

#: Abbreviation class 'sentence' (appendix B): letter-case patterns, final period included.
ABBR_SENTENCE = (
    "A[Rr][Kk].",
    "A[Zz].",
    "D[Ee][Ll].",
    "I[Ll][Ll].",
    "L[Aa].",
    "M[Aa][Ss][Ss].",
    "M[Ii][Ss][Ss].",
    "O[Rr][Ee].",
    "P[Aa].",
    "T[Ee][Xx].",
    "W[Aa][Ss][Hh].",
    "[Aa][Ll].",
    "[Aa][Ll][Aa].",
    "[Aa][Pp][Rr].",
    "[Aa][Rr][Ii][Zz].",
    "[Aa][Ss][Ss][Nn].",
    "[Aa][Uu][Gg].",
    "[Bb][Hh][Dd].",
    "[Bb][Ll][Dd][Gg].",
    "[Bb][Ll][Vv][Dd].",
    "[Bb][Rr][Oo][Ss].",
    "[Cc][Aa][Ll][Ii][Ff].",
    "[Cc][Oo].",
    "[Cc][Oo][Ll][Oo].",
    "[Cc][Oo][Nn][Nn].",
    "[Cc][Oo][Rr][Pp].",
    "[Cc][Oo][Ss].",
    "[Cc][Tt].",
    "[Dd][Aa][Kk].",
    "[Dd][Ee][Cc].",
    "[Ee][Ss][Qq].",
    "[Ee][Ss][Tt].",
    "[Ee][Tt][Cc].",
    "[Ee][Xx][Tt].",
    "[Ff][Ee][Bb].",
    "[Ff][Ll][Aa].",
    "[Ff][Rr][Ii].",
    "[Gg][Aa].",
    "[Ii][Nn][Cc].",
    "[Ii][Nn][Dd].",
    "[Ii][Nn][Tt][Ll].",
    "[Jj][Aa][Nn].",
    "[Jj][Rr].",
    "[Jj][Uu][Ll].",
    "[Jj][Uu][Nn].",
    "[Kk][Aa][Nn].",
    "[Kk][Aa][Nn][Ss].",
    "[Kk][Yy].",
    "[Ll][Tt][Dd].",
    "[Mm][Aa][Rr].",
    "[Mm][Dd].",
    "[Mm][Ii][Cc][Hh].",
    "[Mm][Ii][Nn][Nn].",
    "[Mm][Oo].",
    "[Mm][Oo][Nn].",
    "[Mm][Oo][Nn][Tt].",
    "[Nn][Ee][Bb].",
    "[Nn][Ee][Vv].",
    "[Nn][Oo][Vv].",
    "[Oo][Cc][Tt].",
    "[Oo][Kk][Ll][Aa].",
    "[Pp][Ee][Nn][Nn].",
    "[Pp][Hh].[Dd].",
    "[Pp][Ll][Cc].",
    "[Pp][Pp][Tt]e.",
    "[Pp][Pp][Tt]y.",
    "[Pp][Tt]e.",
    "[Pp][Tt]e[Ss].",
    "[Pp][Tt]y.",
    "[Pp][Tt]y[Ss].",
    "[Rr][Dd].",
    "[Rr][Tt].",
    "[Ss][Ee][Pp].",
    "[Ss][Ee][Pp][Tt].",
    "[Ss][Ee][Qq].",
    "[Ss][Qq].",
    "[Ss][Rr].",
    "[Ss][Yy][Ss].",
    "[Tt][Ee][Ll].",
    "[Tt][Ee][Nn][Nn].",
    "[Tt][Hh][Uu].",
    "[Tt][Hh][Uu][Rr][Ss].",
    "[Tt][Uu][Ee].",
    "[Tt][Uu][Ee][Ss].",
    "[Uu][Nn][Ii][Vv].",
    "[Vv][Aa].",
    "[Vv][Tt].",
    "[Ww][Ee][Dd].",
    "[Ww][Ii][Ss].",
    "[Ww][Ii][Ss][Cc].",
    "[Ww][Yy][Oo].",
)

#: Abbreviation class 'acronym' (appendix B): letter-case patterns, final period included.
ABBR_ACRONYM = (
    "[Aa].[Mm].",
    "[Dd].[Cc].",
    "[Ee].[Gg].",
    "[Ee].[Uu].",
    "[Ii].[Ee].",
    "[Ll].[Aa].",
    "[Nn].[Yy].",
    "[Pp].[Mm].",
    "[Uu].[Kk].",
    "[Uu].[Nn].",
    "[Uu].[Ss].",
)

#: Abbreviation class 'letter' (appendix B): letter-case patterns, final period included.
ABBR_LETTER = (
    "[Aa].",
    "[Bb].",
    "[Cc].",
    "[Dd].",
    "[Ee].",
    "[Ff].",
    "[Gg].",
    "[Hh].",
    "[Ii].",
    "[Jj].",
    "[Kk].",
    "[Ll].",
    "[Mm].",
    "[Nn].",
    "[Oo].",
    "[Pp].",
    "[Qq].",
    "[Rr].",
    "[Ss].",
    "[Tt].",
    "[Uu].",
    "[Vv].",
    "[Ww].",
    "[Xx].",
    "[Yy].",
    "[Zz].",
)

#: Abbreviation class 'number' (appendix B): letter-case patterns, final period included.
ABBR_NUMBER = (
    "[Aa][Rr][Tt].",
    "[Cc][Aa].",
    "[Ff][Ii][Gg].",
    "[Ff][Ii][Gg][Ss].",
    "[Nn][Oo].",
    "[Nn][Oo][Ss].",
    "[Oo][Pp].",
    "[Pp][Pp].",
    "[Pp][Rr][Oo][Pp].",
)

#: Sentence-starter words (appendix B).
STARTERS = (
    "A",
    "A[Bb][Oo][Uu][Tt]",
    "A[Cc][Cc][Oo][Rr][Dd][Ii][Nn][Gg]",
    "A[Dd][Dd][Ii][Tt][Ii][Oo][Nn][Aa][Ll][Ll][Yy]",
    "A[Ff][Tt][Ee][Rr]",
    "A[Nn]",
    "A[Ss]",
    "A[Tt]",
    "B[Uu][Tt]",
    "E[Aa][Rr][Ll][Ii][Ee][Rr]",
    "H[Ee]",
    "H[Ee][Rr]",
    "H[Ee][Rr][Ee]",
    "H[Oo][Ww][Ee][Vv][Ee][Rr]",
    "I[Ff]",
    "I[Nn]",
    "I[Tt]",
    "L[Aa][Ss][Tt]",
    "M[Aa][Nn][Yy]",
    "M[Oo][Rr][Ee]",
    "N[Oo][Ww]",
    "O[Nn][Cc][Ee]",
    "O[Nn][Ee]",
    "O[Tt][Hh][Ee][Rr]",
    "O[Uu][Rr]",
    "S[Hh][Ee]",
    "S[Ii][Nn][Cc][Ee]",
    "S[Oo]",
    "S[Oo][Mm][Ee]",
    "S[Uu][Cc][Hh]",
    "T[Hh][Aa][Tt]",
    "T[Hh][Ee]",
    "T[Hh][Ee][Ii][Rr]",
    "T[Hh][Ee][Nn]",
    "T[Hh][Ee][Rr][Ee]",
    "T[Hh][Ee][Ss][Ee]",
    "T[Hh][Ee][Yy]",
    "T[Hh][Ii][Ss]",
    "W[Ee]",
    "W[Hh][Aa][Tt]",
    "W[Hh][Ee][Nn]",
    "W[Hh][Ii][Ll][Ee]",
    "Y[Ee][Tt]",
    "Y[Oo][Uu]",
)

#: Abbreviations that are sentence starters.
STARTER_ABBREVIATIONS = (
    "M[Rr].",
    "M[Ss].",
)
