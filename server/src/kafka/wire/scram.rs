//! The client side of SCRAM (RFC 5802) for SCRAM-SHA-256 and SCRAM-SHA-512, as Kafka uses it:
//! no channel binding, and the broker's final message is checked (in constant time), so a
//! broker that does not know the password cannot pass for one that does. PBKDF2 and HMAC come
//! from RustCrypto's crates; the messages are klens's own (a SASL framework would be far more
//! code than these two messages).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};
use subtle::ConstantTimeEq;

use super::{WireError, WireResult};

/// The broker's side of the exchange failed: an authentication failure.
fn refused(message: impl Into<String>) -> WireError {
    WireError::Authentication(message.into())
}

/// The iteration counts klens accepts from a broker: Kafka's own minimum (it refuses fewer), and
/// a ceiling that keeps a hostile broker from making each connection spin.
const ITERATIONS: std::ops::RangeInclusive<u32> = 4_096..=16_384;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        // Both HMACs accept keys of any length, so `new_from_slice` cannot fail.
        match self {
            Hash::Sha256 => Hmac::<Sha256>::new_from_slice(key)
                .map(|mut m| {
                    m.update(data);
                    m.finalize().into_bytes().to_vec()
                })
                .unwrap_or_default(),
            Hash::Sha512 => Hmac::<Sha512>::new_from_slice(key)
                .map(|mut m| {
                    m.update(data);
                    m.finalize().into_bytes().to_vec()
                })
                .unwrap_or_default(),
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// SCRAM's `Hi()`: PBKDF2 with this HMAC, one output block of the hash's length.
    pub(super) fn salted_password(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        match self {
            Hash::Sha256 => {
                pbkdf2::pbkdf2_hmac_array::<Sha256, 32>(password, salt, iterations).to_vec()
            }
            Hash::Sha512 => {
                pbkdf2::pbkdf2_hmac_array::<Sha512, 64>(password, salt, iterations).to_vec()
            }
        }
    }
}

/// One SCRAM exchange, from the client's first message to the check of the server's last.
pub struct Scram {
    hash: Hash,
    password: String,
    nonce: String,
    client_first_bare: String,
    server_signature: Option<Vec<u8>>,
}

impl Scram {
    pub fn new(hash: Hash, username: &str, password: &str) -> Scram {
        use rand::Rng;
        let nonce: String = rand::thread_rng()
            .sample_iter(&rand::distributions::Alphanumeric)
            .take(24)
            .map(char::from)
            .collect();
        Scram::with_nonce(hash, username, password, nonce)
    }

    fn with_nonce(hash: Hash, username: &str, password: &str, nonce: String) -> Scram {
        let name = username.replace('=', "=3D").replace(',', "=2C");
        Scram {
            hash,
            password: password.to_string(),
            client_first_bare: format!("n={name},r={nonce}"),
            nonce,
            server_signature: None,
        }
    }

    /// The first message: no channel binding, no authorization identity.
    pub fn client_first(&self) -> String {
        format!("n,,{}", self.client_first_bare)
    }

    /// The answer to the server's first message, with the client proof.
    pub fn client_final(&mut self, server_first: &str) -> WireResult<String> {
        let mut nonce = None;
        let mut salt = None;
        let mut iterations = None;
        for part in server_first.split(',') {
            match part.split_once('=') {
                Some(("r", v)) => nonce = Some(v),
                Some(("s", v)) => salt = Some(v),
                Some(("i", v)) => iterations = Some(v),
                Some(("m", _)) => return Err(refused("the broker asks for a SCRAM extension")),
                _ => {}
            }
        }
        let (Some(nonce), Some(salt), Some(iterations)) = (nonce, salt, iterations) else {
            return Err(refused("the broker's SCRAM challenge is incomplete"));
        };
        if !nonce.starts_with(&self.nonce) || nonce.len() == self.nonce.len() {
            return Err(refused("the broker's SCRAM nonce does not extend klens's"));
        }
        let salt =
            STANDARD.decode(salt).map_err(|_| refused("the broker's SCRAM salt is not base64"))?;
        let iterations: u32 =
            iterations.parse().ok().filter(|i| ITERATIONS.contains(i)).ok_or_else(|| {
                refused(format!(
                    "the broker's SCRAM iteration count is outside {}..={}",
                    ITERATIONS.start(),
                    ITERATIONS.end()
                ))
            })?;

        let salted = self.hash.salted_password(self.password.as_bytes(), &salt, iterations);
        let client_key = self.hash.hmac(&salted, b"Client Key");
        let stored_key = self.hash.digest(&client_key);
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let signature = self.hash.hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key.iter().zip(&signature).map(|(k, s)| k ^ s).collect();
        let server_key = self.hash.hmac(&salted, b"Server Key");
        self.server_signature = Some(self.hash.hmac(&server_key, auth_message.as_bytes()));
        Ok(format!("{without_proof},p={}", STANDARD.encode(proof)))
    }

    /// Checks the server's last message: it must prove that the server knows the password.
    pub fn verify_server_final(&self, server_final: &str) -> WireResult<()> {
        if let Some(error) = server_final.strip_prefix("e=") {
            return Err(refused(format!("the broker refused the SCRAM proof: {error}")));
        }
        let expected = self
            .server_signature
            .as_ref()
            // Only klens calling out of order leaves no signature to check against.
            .ok_or_else(|| WireError::Internal("the SCRAM exchange is out of order".into()))?;
        let given = server_final
            .split(',')
            .find_map(|p| p.strip_prefix("v="))
            .and_then(|v| STANDARD.decode(v).ok())
            .ok_or_else(|| refused("the broker's SCRAM answer has no signature"))?;
        // Constant time: how much of a forged signature matched must not show in the timing.
        if bool::from(given.as_slice().ct_eq(expected.as_slice())) {
            Ok(())
        } else {
            Err(refused("the broker's SCRAM signature is wrong"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example exchange of RFC 7677, section 3.
    #[test]
    fn the_rfc_7677_example_exchange() {
        let mut scram =
            Scram::with_nonce(Hash::Sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO".into());
        assert_eq!(scram.client_first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(
            scram.client_final(server_first).as_deref(),
            Ok("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        );
        assert_eq!(
            scram.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="),
            Ok(())
        );
        assert!(scram
            .verify_server_final("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .is_err());
    }

    #[test]
    fn bad_challenges_are_refused() {
        let fresh = || Scram::with_nonce(Hash::Sha512, "a,b=c", "pw", "abc".into());
        assert_eq!(fresh().client_first(), "n,,n=a=2Cb=3Dc,r=abc");
        let cases = [
            "r=abcdef,s=c2FsdA==",               // no iteration count
            "r=xyz123,s=c2FsdA==,i=4096",        // nonce not extended from ours
            "r=abc,s=c2FsdA==,i=4096",           // nonce not extended at all
            "r=abcdef,s=!!!,i=4096",             // salt not base64
            "r=abcdef,s=c2FsdA==,i=0",           // iteration count out of range
            "r=abcdef,s=c2FsdA==,i=4095",        // below Kafka's minimum
            "r=abcdef,s=c2FsdA==,i=16385",       // above klens's ceiling
            "r=abcdef,s=c2FsdA==,i=99999999999", // iteration count out of range
            "m=ext,r=abcdef,s=c2FsdA==,i=4096",  // a mandatory extension
        ];
        for case in cases {
            assert!(fresh().client_final(case).is_err(), "{case}");
        }
        assert!(fresh().verify_server_final("v=AAAA").is_err());
        let refused = fresh().verify_server_final("e=invalid-proof");
        assert!(
            matches!(&refused, Err(e) if e.to_string().contains("invalid-proof")),
            "{refused:?}"
        );
    }
}
