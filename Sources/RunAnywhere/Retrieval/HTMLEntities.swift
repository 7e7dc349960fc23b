/// HTML's character references: numeric (`&#233;`, `&#xE9;`) and named, the 252 names of HTML 4
/// (which HTML5 keeps; `&lang;` and `&rang;` with HTML5's characters) and `&apos;`.
enum HTMLEntities {
    /// Each name's Unicode scalar.
    static let named: [String: Unicode.Scalar] = {
        let pairs = """
            quot 34 amp 38 apos 39 lt 60 gt 62 nbsp 160 iexcl 161 cent 162 pound 163 curren 164 yen 165 brvbar 166 sect 167
            uml 168 copy 169 ordf 170 laquo 171 not 172 shy 173 reg 174 macr 175 deg 176 plusmn 177 sup2 178 sup3 179 acute
            180 micro 181 para 182 middot 183 cedil 184 sup1 185 ordm 186 raquo 187 frac14 188 frac12 189 frac34 190 iquest
            191 Agrave 192 Aacute 193 Acirc 194 Atilde 195 Auml 196 Aring 197 AElig 198 Ccedil 199 Egrave 200 Eacute 201
            Ecirc 202 Euml 203 Igrave 204 Iacute 205 Icirc 206 Iuml 207 ETH 208 Ntilde 209 Ograve 210 Oacute 211 Ocirc 212
            Otilde 213 Ouml 214 times 215 Oslash 216 Ugrave 217 Uacute 218 Ucirc 219 Uuml 220 Yacute 221 THORN 222 szlig 223
            agrave 224 aacute 225 acirc 226 atilde 227 auml 228 aring 229 aelig 230 ccedil 231 egrave 232 eacute 233 ecirc
            234 euml 235 igrave 236 iacute 237 icirc 238 iuml 239 eth 240 ntilde 241 ograve 242 oacute 243 ocirc 244 otilde
            245 ouml 246 divide 247 oslash 248 ugrave 249 uacute 250 ucirc 251 uuml 252 yacute 253 thorn 254 yuml 255 OElig
            338 oelig 339 Scaron 352 scaron 353 Yuml 376 fnof 402 circ 710 tilde 732 Alpha 913 Beta 914 Gamma 915 Delta 916
            Epsilon 917 Zeta 918 Eta 919 Theta 920 Iota 921 Kappa 922 Lambda 923 Mu 924 Nu 925 Xi 926 Omicron 927 Pi 928 Rho
            929 Sigma 931 Tau 932 Upsilon 933 Phi 934 Chi 935 Psi 936 Omega 937 alpha 945 beta 946 gamma 947 delta 948
            epsilon 949 zeta 950 eta 951 theta 952 iota 953 kappa 954 lambda 955 mu 956 nu 957 xi 958 omicron 959 pi 960 rho
            961 sigmaf 962 sigma 963 tau 964 upsilon 965 phi 966 chi 967 psi 968 omega 969 thetasym 977 upsih 978 piv 982
            ensp 8194 emsp 8195 thinsp 8201 zwnj 8204 zwj 8205 lrm 8206 rlm 8207 ndash 8211 mdash 8212 lsquo 8216 rsquo 8217
            sbquo 8218 ldquo 8220 rdquo 8221 bdquo 8222 dagger 8224 Dagger 8225 bull 8226 hellip 8230 permil 8240 prime 8242
            Prime 8243 lsaquo 8249 rsaquo 8250 oline 8254 frasl 8260 euro 8364 image 8465 weierp 8472 real 8476 trade 8482
            alefsym 8501 larr 8592 uarr 8593 rarr 8594 darr 8595 harr 8596 crarr 8629 lArr 8656 uArr 8657 rArr 8658 dArr
            8659 hArr 8660 forall 8704 part 8706 exist 8707 empty 8709 nabla 8711 isin 8712 notin 8713 ni 8715 prod 8719 sum
            8721 minus 8722 lowast 8727 radic 8730 prop 8733 infin 8734 ang 8736 and 8743 or 8744 cap 8745 cup 8746 int 8747
            there4 8756 sim 8764 cong 8773 asymp 8776 ne 8800 equiv 8801 le 8804 ge 8805 sub 8834 sup 8835 nsub 8836 sube
            8838 supe 8839 oplus 8853 otimes 8855 perp 8869 sdot 8901 lceil 8968 rceil 8969 lfloor 8970 rfloor 8971 loz 9674
            spades 9824 clubs 9827 hearts 9829 diams 9830 lang 10216 rang 10217
            """.split(whereSeparator: \.isWhitespace)
        var table: [String: Unicode.Scalar] = [:]
        for index in stride(from: 0, to: pairs.count - 1, by: 2) {
            if let value = UInt32(pairs[index + 1]), let scalar = Unicode.Scalar(value) { table[String(pairs[index])] = scalar }
        }
        return table
    }()

    /// The reference starting at `scalars[start]` (an `&`), when it is one: its character and
    /// the index after it. A numeric reference may end without its `;`, a named one must not;
    /// a code point that is no character (0, a surrogate, beyond U+10FFFF) reads as U+FFFD.
    static func reference(in scalars: [Unicode.Scalar], at start: Int) -> (scalar: Unicode.Scalar, end: Int)? {
        var index = start + 1
        guard index < scalars.count else { return nil }
        guard scalars[index] == "#" else {
            let nameStart = index
            while index < scalars.count, index - nameStart <= 10, digit(scalars[index], radix: 36) != nil { index += 1 }
            guard index < scalars.count, scalars[index] == ";",
                let scalar = named[String(String.UnicodeScalarView(scalars[nameStart..<index]))]
            else { return nil }
            return (scalar, index + 1)
        }
        index += 1
        let radix: UInt32 = index < scalars.count && (scalars[index] == "x" || scalars[index] == "X") ? 16 : 10
        if radix == 16 { index += 1 }
        let digitsStart = index
        var value: UInt32 = 0
        while index < scalars.count, let digit = digit(scalars[index], radix: radix) {
            if value <= 0x10FFFF { value = value * radix + digit }
            index += 1
        }
        guard index > digitsStart else { return nil }
        if index < scalars.count, scalars[index] == ";" { index += 1 }
        let scalar = value == 0 ? nil : Unicode.Scalar(value)
        return (scalar ?? "\u{FFFD}", index)
    }

    /// The value of the ASCII letter or digit `scalar` in `radix` (10, 16 or 36).
    private static func digit(_ scalar: Unicode.Scalar, radix: UInt32) -> UInt32? {
        let value: UInt32
        switch scalar {
        case "0"..."9": value = scalar.value - 48
        case "a"..."z": value = scalar.value - 87
        case "A"..."Z": value = scalar.value - 55
        default: return nil
        }
        return value < radix ? value : nil
    }
}
