// SHA-256 (FIPS 180-4) of bytes, as 64 lowercase hex digits: the digest results carry for every
// file a run read, so anyone can check which scenario, profile or table produced them
// (`sha256sum FILE` prints the same digits).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ddpsim {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The digest of everything passed to update(); the object must not be updated afterwards.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes hashed so far
};

std::string sha256_hex(std::string_view bytes);

}  // namespace ddpsim
