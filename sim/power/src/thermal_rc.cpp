#include "npu/sim/power/thermal_rc.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace npu::sim {
namespace {

// Cyclic Jacobi eigen-decomposition of a symmetric n×n matrix `a` (row-major, destroyed): eigenvalues
// into `values`, eigenvectors into the columns of `vectors`. Chosen over a general-purpose solver because
// the matrix is tiny and symmetric, and Jacobi keeps small eigenvalues (the slow skin mode) accurate
// relative to their size even when the fast junction mode is 10⁴× larger.
void jacobi_eigen(size_t n, std::vector<double> a, std::vector<double>& values,
                  std::vector<double>& vectors) {
  auto at = [n](std::vector<double>& m, size_t r, size_t c) -> double& { return m[r * n + c]; };
  vectors.assign(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) at(vectors, i, i) = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (size_t p = 0; p < n; ++p) {
      diag += at(a, p, p) * at(a, p, p);
      for (size_t q = p + 1; q < n; ++q) off += at(a, p, q) * at(a, p, q);
    }
    if (off <= 1e-36 * diag) break;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) {
        const double apq = at(a, p, q);
        if (apq == 0.0) continue;
        // Rotation angle that zeroes a_pq (the smaller of the two roots, for stability).
        const double theta = (at(a, q, q) - at(a, p, p)) / (2.0 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0);
        const double s = t * c;
        // a ← Jᵀ a J and v ← v J with J = identity except J_pp = J_qq = c, J_pq = s, J_qp = −s.
        for (size_t k = 0; k < n; ++k) {
          const double akp = at(a, k, p), akq = at(a, k, q);
          at(a, k, p) = c * akp - s * akq;
          at(a, k, q) = s * akp + c * akq;
        }
        for (size_t k = 0; k < n; ++k) {
          const double apk = at(a, p, k), aqk = at(a, q, k);
          at(a, p, k) = c * apk - s * aqk;
          at(a, q, k) = s * apk + c * aqk;
        }
        for (size_t k = 0; k < n; ++k) {
          const double vkp = at(vectors, k, p), vkq = at(vectors, k, q);
          at(vectors, k, p) = c * vkp - s * vkq;
          at(vectors, k, q) = s * vkp + c * vkq;
        }
      }
    }
  }
  values.resize(n);
  for (size_t i = 0; i < n; ++i) values[i] = at(a, i, i);
}

}  // namespace

Result<ThermalRc> ThermalRc::create(std::vector<ThermalNode> chain, double ambient_c) {
  if (chain.empty()) return make_error("thermal RC network: at least one node is needed");
  if (!std::isfinite(ambient_c)) return make_error("thermal RC network: ambient temperature is not finite");
  for (const auto& n : chain) {
    std::ostringstream m;
    if (!(n.capacity_j_per_k > 0) || !std::isfinite(n.capacity_j_per_k)) {
      m << n.name << ".capacity_j_per_k: expected a positive heat capacity, got " << n.capacity_j_per_k;
      return make_error(m.str());
    }
    if (!(n.resistance_k_per_w > 0) || !std::isfinite(n.resistance_k_per_w)) {
      m << n.name << ".resistance_k_per_w: expected a positive thermal resistance, got "
        << n.resistance_k_per_w;
      return make_error(m.str());
    }
  }
  return ThermalRc(std::move(chain), ambient_c);
}

Result<ThermalRc> ThermalRc::from_config(const ThermalConfig& cfg) {
  const std::string& p = cfg.prefix;
  return create({{p + ".junction", cfg.junction.capacity_j_per_k, cfg.junction.resistance_k_per_w},
                 {p + ".package", cfg.package.capacity_j_per_k, cfg.package.resistance_k_per_w},
                 {p + ".skin", cfg.skin.capacity_j_per_k, cfg.skin.resistance_k_per_w}},
                cfg.ambient_c);
}

ThermalRc::ThermalRc(std::vector<ThermalNode> nodes, double ambient_c)
    : nodes_(std::move(nodes)), ambient_c_(ambient_c) {
  const size_t n = nodes_.size();
  theta_.assign(n, 0.0);
  sqrt_c_.resize(n);
  r_out_.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) sqrt_c_[i] = std::sqrt(nodes_[i].capacity_j_per_k);
  for (size_t i = n; i-- > 0;) r_out_[i] = nodes_[i].resistance_k_per_w + (i + 1 < n ? r_out_[i + 1] : 0.0);

  // S = C^{−½} G C^{−½}.
  std::vector<double> s(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const double g_in = i > 0 ? 1.0 / nodes_[i - 1].resistance_k_per_w : 0.0;
    const double g_out = 1.0 / nodes_[i].resistance_k_per_w;
    s[i * n + i] = (g_in + g_out) / nodes_[i].capacity_j_per_k;
    if (i + 1 < n) {
      const double off = -g_out / (sqrt_c_[i] * sqrt_c_[i + 1]);
      s[i * n + i + 1] = off;
      s[(i + 1) * n + i] = off;
    }
  }
  jacobi_eigen(n, std::move(s), lambda_, q_);
}

void ThermalRc::step(double dt_s, double power_w) {
  if (!(dt_s > 0)) return;
  const size_t n = nodes_.size();
  // Modal amplitudes of the deviation from this power's steady state: z = Qᵀ C^{½} (θ − θ_ss).
  std::vector<double> y(n), z(n, 0.0), decayed(n), integral(n);
  for (size_t i = 0; i < n; ++i) y[i] = sqrt_c_[i] * (theta_[i] - power_w * r_out_[i]);
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < n; ++i) z[k] += q_[i * n + k] * y[i];
    // expm1 keeps (1 − e^{−λΔt}) accurate when λΔt is tiny.
    const double one_minus_decay = -std::expm1(-lambda_[k] * dt_s);
    decayed[k] = z[k] * (1.0 - one_minus_decay);
    integral[k] = z[k] * one_minus_decay / lambda_[k];
  }
  for (size_t i = 0; i < n; ++i) {
    double back = 0;
    for (size_t k = 0; k < n; ++k) back += q_[i * n + k] * decayed[k];
    theta_[i] = power_w * r_out_[i] + back / sqrt_c_[i];
  }
  // Outflow g·θ_last: the steady part carries exactly P, the decaying part its closed-form integral.
  const size_t last = n - 1;
  double dev = 0;
  for (size_t k = 0; k < n; ++k) dev += q_[last * n + k] * integral[k];
  heat_out_j_ += power_w * dt_s + dev / (sqrt_c_[last] * nodes_[last].resistance_k_per_w);
}

Result<void> ThermalRc::set_temperatures_c(const std::vector<double>& temps) {
  if (temps.size() != nodes_.size()) {
    return make_error("thermal RC network: " + std::to_string(temps.size()) + " temperatures for " +
                      std::to_string(nodes_.size()) + " nodes");
  }
  for (size_t i = 0; i < temps.size(); ++i) theta_[i] = temps[i] - ambient_c_;
  return {};
}

std::vector<double> ThermalRc::steady_state_c(double power_w) const {
  std::vector<double> t(nodes_.size());
  for (size_t i = 0; i < t.size(); ++i) t[i] = ambient_c_ + power_w * r_out_[i];
  return t;
}

std::vector<double> ThermalRc::time_constants_s() const {
  std::vector<double> tau;
  for (double l : lambda_) tau.push_back(1.0 / l);
  std::sort(tau.begin(), tau.end(), std::greater<>());
  return tau;
}

double ThermalRc::stored_heat_j() const {
  double e = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) e += nodes_[i].capacity_j_per_k * theta_[i];
  return e;
}

}  // namespace npu::sim
