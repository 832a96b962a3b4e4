#pragma once
// Compile-time lists of types and values, and loops over them. The variant
// space (variant_space.hpp, generated from cmake/CompoundSparseVariantSpace.cmake)
// is made of these lists; the registry, the tests and the tools loop over them
// instead of spelling the space out again.

#include <cstddef>
#include <type_traits>
#include <utility>

namespace compound_sparse {

template <class... T>
struct TypeList {
  static constexpr std::size_t size = sizeof...(T);
};

template <class T>
struct TypeTag {
  using type = T;
};

template <auto... V>
struct ValueList {
  static constexpr std::size_t size = sizeof...(V);
};

namespace impl {

template <class List, std::size_t I>
struct type_at;
template <class T, class... Rest>
struct type_at<TypeList<T, Rest...>, 0> {
  using type = T;
};
template <class T, class... Rest, std::size_t I>
struct type_at<TypeList<T, Rest...>, I> : type_at<TypeList<Rest...>, I - 1> {};

template <class List, class T>
struct list_contains;
template <class... Ts, class T>
struct list_contains<TypeList<Ts...>, T> : std::bool_constant<(std::is_same<Ts, T>::value || ...)> {};

}  // namespace impl

/// The I-th type of a TypeList.
template <class List, std::size_t I>
using type_at_t = typename impl::type_at<List, I>::type;

/// Whether the TypeList holds T.
template <class List, class T>
constexpr bool list_contains_v = impl::list_contains<List, T>::value;

/// f(TypeTag<T>{}) for each T of the list, in order.
template <class... T, class F>
void for_each_type(TypeList<T...>, F&& f) {
  (f(TypeTag<T>{}), ...);
}

/// f(std::integral_constant<decltype(V), V>{}) for each value of the list, in order.
template <auto... V, class F>
void for_each_value(ValueList<V...>, F&& f) {
  (f(std::integral_constant<decltype(V), V>{}), ...);
}

/// f(std::integral_constant<std::size_t, I>{}) for I in [First, Last).
template <std::size_t First, std::size_t Last, class F>
void for_each_index(F&& f) {
  if constexpr (First < Last) {
    f(std::integral_constant<std::size_t, First>{});
    for_each_index<First + 1, Last>(std::forward<F>(f));
  }
}

}  // namespace compound_sparse
