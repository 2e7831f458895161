import JOSE

/// Test vectors copied from RFC 7515 Appendix A and RFC 7638 §3.1. The RSA CRT
/// members (dp, dq, qi) and the PS256/PS512/RS384/PEM values were produced with
/// Python `cryptography` from the RFC key, and A.1/A.2/A.3 were re-verified there.
enum Vectors {
    /// A.1–A.3 payload: `{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}`.
    static let payloadSegment = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let payloadBytes: [UInt8] = Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)

    // A.1 HS256
    static let a1Header: [UInt8] = Array("{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}".utf8)
    static let a1Key = JWK(kty: "oct", k: "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
    static let a1Compact = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." + payloadSegment + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let a1SignatureBytes: [UInt8] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91,
        88, 5, 88, 83, 132, 141, 121,
    ]

    // A.2 RS256
    static let a2Header: [UInt8] = Array("{\"alg\":\"RS256\"}".utf8)
    static let a2Key = JWK(
        kty: "RSA",
        n: "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
        e: "AQAB",
        d: "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ",
        p: "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc",
        q: "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc",
        dp: "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0",
        dq: "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU",
        qi: "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U")
    static let a2SigningInput = "eyJhbGciOiJSUzI1NiJ9." + payloadSegment
    static let a2Signature = "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static var a2Compact: String { a2SigningInput + "." + a2Signature }

    /// A.2 key, PS256 / PS512 / RS384 over the A.2 signing input (Python `cryptography`;
    /// PSS salt = hash length, so PSS ones verify but are not reproducible).
    static let a2PS256 = "N56u3o_7p1PLwdV5ouDEd77H4hmhooKVUPEfHPH_EgPG8xlC2rfqtrfd0Ftb4ENpTnI5cPVQ0iMqBZup9zPLrEUKW2DuSvmetrQzgIaM5WU4aGzU62uWis0lSmhgxCgvtZNwnaAS7MkWkjYGUOIR9a2s6R7ovVkgXK9fJitCUUYl3OMP_lGjVI6hGA-x91xTZW6SoA4KiNMf1ydhXVIDbiNp8vamxItC9Xd9zekuNyR8vBGYbWf4Yhse0COnzaii42MkJKsPc0E_exOAKN3TL_lu4LvP79Y1zoaTG-lDTwQZLDQFUFyYFJUo4bNFO3j6pNDn7Oo7nHBADhDLNXKmdg"
    static let a2PS512 = "MN4X9dqZ8hl6SDzJ2-mtFi1Ovf4kIcX4ffr1nj0u_WKEJyumnvTkj6QLPAOnKZnIBb3nBP201DVaC9pzl8FyTJ8WCJKy-csHRVExF94y8FQRj4Br_yV2GjOZ9NnIcrcSxhHTlL-A4XWuwukHZXMamuqfdlLxy0HnHK6jPk6dGw0KheJytyv5RAnc8CfE8sv9I9lchLeAcjwV-Rs1_gUvrgXSF4QtKzxDu88DKLDTpWfLsHSAthNuPVrV-RmMdJRymDQtKLNxpuzxuuwVKYxqXBlH8t-NKVKo1OFE2orKPVF7eq4u_9zr2FV0Kr7V7l-SqeYYX1hXTEqc_DbvLcgZqg"
    static let a2RS384 = "QMlqnIk4Jg6V4BsZGDb3PTKORZPw-eoUq-FsnjYifl08H95otuD2EHkUuDdfTGjEcJ6tgIehmwfchztWsgwuobaeMbRS44doIjGi4FaIHX4XlKcIlUxSnJPQ2O8bWZF6vkvQaPBXjzwLDGKUTkJwwP052sCL-ivRWakkNETy66m2ODQjg4mN6EJI2o6_hRsklNEHPHjrTdOWnugAcEJ44e_fZ3cCFlP9009ITkx9ZgiVR8ViI-KBgCY90JDhxneWKNzWidZaTg6TcEUQo73V1H4WSbzUVa7aLTFVc5OTSX-kO6GNrlCSKHx-M_yPDowT9ovfNX_UXJzxxMWWwGaYCA"
    static let a2PublicPEM = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAofgWCuLjybRlzo0tZWJj
        NiuSfb4p4fAkd/wWJcyQoTbji9k0l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEz
        P1Pt0Bm4d4QlL+yRT+SFd2lZS+pCgNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo
        9wGzjb/7OMg0LOL+bSf63kpaSHSXndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTB
        EMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxX
        FvUK+DWNmoudF8NAco9/h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXp
        oQIDAQAB
        -----END PUBLIC KEY-----

        """

    // A.3 ES256
    static let a3Key = JWK(
        kty: "EC", crv: "P-256",
        x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
        d: "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI")
    static let a3SigningInput = "eyJhbGciOiJFUzI1NiJ9." + payloadSegment
    static let a3Signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// The A.3 signature DER-encoded (s has its high bit set, so it gains a 0x00).
    static let a3SignatureDERHex = "304502200ed1215379636c483c2f7f155807d402a3b228033af97c7e17819ac3169ea665022100c50a07d38c3c70e5d8f12daf084a5480a66590c5f293509a8f3f7f8a83a354d5"
    static let a3PrivatePEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEII6bEJ5xkJi/mASH3x9dd+nLKWBuvtImO19XwhPfhPSyoAoGCCqGSM49
        AwEHoUQDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEXH8UTNG72b
        focs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
        -----END EC PRIVATE KEY-----
        """

    // A.5 unsecured
    static let a5Compact = "eyJhbGciOiJub25lIn0." + payloadSegment + "."

    // RFC 7638 §3.1
    static let rfc7638Key = JWK(
        kty: "RSA", kid: "2011-04-29", alg: "RS256",
        n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        e: "AQAB")
    static let rfc7638Thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"

    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            out.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return out
    }
}
