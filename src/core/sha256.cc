// SHA-256 through OpenSSL's EVP interface (hhlo/core/sha256.h).
#include "hhlo/core/sha256.h"

#include <openssl/evp.h>

#include "hhlo/core/error.h"

namespace hhlo {

struct Sha256::State {
  EVP_MD_CTX* ctx = nullptr;
  bool done = false;
  ~State() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (!state_->ctx || EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) != 1)
    throw Error("sha256: OpenSSL's EVP digest could not start");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::string_view bytes) {
  if (!state_ || state_->done) throw Error("sha256: update after the digest was read");
  if (EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size()) != 1)
    throw Error("sha256: OpenSSL's EVP digest failed");
}

std::string Sha256::digest() {
  if (!state_ || state_->done) throw Error("sha256: the digest was already read");
  state_->done = true;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(state_->ctx, md, &len) != 1 || len != 32)
    throw Error("sha256: OpenSSL's EVP digest failed");
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string Sha256::hex() { return to_hex(digest()); }

std::string sha256(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.digest();
}

std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(bytes)); }

std::string to_hex(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace hhlo
