// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto: the one digest of the library, behind every
// key of the compile cache, the program stage's records and hhlo::load.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace hhlo {

/// An incremental SHA-256: feed bytes in parts with update(), read the digest once. Move-only.
class Sha256 {
 public:
  /// Starts a digest (EVP_DigestInit_ex with EVP_sha256). Throws hhlo::Error if libcrypto fails.
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  /// Feeds `bytes` (hashed where they lie, not copied). Throws hhlo::Error if libcrypto fails
  /// or the digest was already read.
  void update(std::string_view bytes);
  /// The 32-byte digest of everything fed. Ends the digest: a later update or digest throws
  /// hhlo::Error.
  std::string digest();
  /// digest() as 64 lowercase hex digits.
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The 32-byte SHA-256 of `bytes`. Throws hhlo::Error only if libcrypto fails.
std::string sha256(std::string_view bytes);

/// The lowercase hex SHA-256 of `bytes` (64 digits). Throws hhlo::Error only if libcrypto fails.
std::string sha256_hex(std::string_view bytes);

/// `raw` bytes as lowercase hex, two digits a byte.
std::string to_hex(std::string_view raw);

}  // namespace hhlo
