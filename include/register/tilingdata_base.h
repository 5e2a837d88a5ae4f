// CANN's host-side tiling-data definition macros (register/tilingdata_base.h):
//
//   namespace optiling {
//   BEGIN_TILING_DATA_DEF(AddCustomTilingData)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//     TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, arr);
//     TILING_DATA_FIELD_DEF_STRUCT(Matmul, mm);   // a class made by these macros
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
//   }
//
// give a class with set_<field>(v) / get_<field>() for each field (an array
// field's setter copies exactly its declared count from the pointer; its getter
// returns the array), GetDataSize() and SaveToBuffer(buf, capacity).
//
// Layout (why it is a plain class): the bytes SaveToBuffer writes are the
// fields in declaration order, each at an offset that is a multiple of its
// size (CANN pads unaligned fields the same way), i.e. exactly the layout of
// the plain C struct with the same members that the kernel side declares and
// reads with GET_TILING_DATA (asc/kernel/tiling_data.h). So the class holds
// its fields as ordinary members (no base class, no virtual functions: it is
// standard-layout and trivially copyable) and its bytes are the buffer;
// GetDataSize() is sizeof the class (the C struct's size, tail padding
// included). Field types are CANN's: int8..uint64 and float (a _STRUCT field
// is another class made by these macros).
//
// Thread-safety: a tiling object is a value; REGISTER_TILING_DATA_CLASS
// registers at static-initialisation time, the registry is read-only after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

namespace optiling {
namespace detail {

template <typename T>
inline constexpr bool tiling_scalar_v =
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
    std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, float>;

/// Marks the classes made by BEGIN_TILING_DATA_DEF (for _STRUCT fields).
template <typename T, typename = void>
struct is_tiling_class : std::false_type {};
template <typename T>
struct is_tiling_class<T, std::void_t<typename T::AscTilingDataClass>> : std::true_type {};

/// What REGISTER_TILING_DATA_CLASS records: op type -> class name and data size.
struct TilingClassInfo {
  std::string class_name;
  size_t data_size = 0;
};

inline std::map<std::string, TilingClassInfo>& tiling_registry() {
  static std::map<std::string, TilingClassInfo> registry;
  return registry;
}

struct TilingClassRegistrar {
  TilingClassRegistrar(const char* op_type, const char* class_name, size_t data_size) {
    tiling_registry()[op_type] = TilingClassInfo{class_name, data_size};
  }
};

/// SaveToBuffer: copies `size` bytes when `capacity` holds them; otherwise
/// writes nothing and says so on stderr (CANN logs the same error and
/// returns; the call has no status to return).
inline void save_to_buffer(const char* cls, const void* self, size_t size, void* buf, size_t capacity) {
  if (buf == nullptr) {
    std::fprintf(stderr, "[ERROR] %s::SaveToBuffer: the buffer is null\n", cls);
    return;
  }
  if (capacity < size) {
    std::fprintf(stderr, "[ERROR] %s::SaveToBuffer: capacity %zu bytes is less than the tiling data's %zu bytes\n",
                 cls, capacity, size);
    return;
  }
  std::memcpy(buf, self, size);
}

}  // namespace detail

/// The class REGISTER_TILING_DATA_CLASS bound to `op_type`, or nullptr.
inline const detail::TilingClassInfo* GetRegisteredTilingClass(const std::string& op_type) {
  const auto& r = detail::tiling_registry();
  const auto it = r.find(op_type);
  return it == r.end() ? nullptr : &it->second;
}

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                                                              \
  class class_name {                                                                                   \
   public:                                                                                             \
    using AscTilingDataClass = class_name;                                                             \
    /* Bytes of the tiling data (the kernel-side C struct's size). */                                  \
    size_t GetDataSize() const { return sizeof(class_name); }                                          \
    /* Serialises the fields into buf (capacity bytes). */                                             \
    void SaveToBuffer(void* pdata, size_t capacity) const {                                            \
      ::optiling::detail::save_to_buffer(#class_name, this, sizeof(class_name), pdata, capacity);      \
    }                                                                                                  \
    /* CANN's framework hooks: the layout is already aligned; data lives in the object. */             \
    void CheckAlignAndGenPlaceHolder(const char*, size_t) {}                                           \
    void SetDataPtr(void*) {}

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                   \
  static_assert(::optiling::detail::tiling_scalar_v<data_type>,                                        \
                "TILING_DATA_FIELD_DEF(" #data_type ", " #field_name                                   \
                "): the field type must be int8_t..uint64_t or float");                                \
  void set_##field_name(data_type field_name##_value) { field_name = field_name##_value; }             \
  data_type get_##field_name() const { return field_name; }                                            \
  data_type field_name = 0

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                      \
  static_assert(::optiling::detail::tiling_scalar_v<arr_type>,                                         \
                "TILING_DATA_FIELD_DEF_ARR(" #arr_type ", " #arr_size ", " #field_name                 \
                "): the element type must be int8_t..uint64_t or float");                              \
  static_assert((arr_size) > 0, "TILING_DATA_FIELD_DEF_ARR(" #arr_type ", " #arr_size ", " #field_name \
                                "): the size must be positive");                                       \
  /* Copies exactly arr_size elements from the pointer (CANN: the caller keeps it that long). */       \
  void set_##field_name(const arr_type* field_name##_value) {                                          \
    std::memcpy(field_name, field_name##_value, sizeof(field_name));                                   \
  }                                                                                                    \
  arr_type* get_##field_name() { return field_name; }                                                  \
  const arr_type* get_##field_name() const { return field_name; }                                      \
  arr_type field_name[arr_size] = {}

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                          \
  static_assert(::optiling::detail::is_tiling_class<struct_type>::value,                               \
                "TILING_DATA_FIELD_DEF_STRUCT(" #struct_type ", " #field_name                          \
                "): the type must be a class made by BEGIN_TILING_DATA_DEF");                          \
  void set_##field_name(const struct_type& field_name##_value) { field_name = field_name##_value; }    \
  struct_type& get_##field_name() { return field_name; }                                               \
  const struct_type& get_##field_name() const { return field_name; }                                   \
  struct_type field_name

#define END_TILING_DATA_DEF }

/// Binds the class to an operator type (a nested class registers as <name>Op).
/// Complete with or without the caller's ';' (CANN's examples write none).
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                \
  static_assert(std::is_trivially_copyable_v<class_name> && std::is_standard_layout_v<class_name>,     \
                "REGISTER_TILING_DATA_CLASS(" #op_type ", " #class_name "): not a tiling data class"); \
  [[maybe_unused]] static const ::optiling::detail::TilingClassRegistrar                               \
      g_asc_tiling_data_registrar_##op_type(#op_type, #class_name, sizeof(class_name));
