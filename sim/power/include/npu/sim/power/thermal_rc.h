// Lumped thermal RC network of the NPU: a chain of N nodes (junction → package → skin for the NPU, any
// N ≥ 1 for tests), node i joined to node i+1 by R_i and the last node to ambient by R_{N−1}; power is
// injected at the junction (node 0). step() is exact for power held constant over the step.
//
// The math. With θ = T − T_amb and conductances g_i = 1/R_i,
//     C dθ/dt = −G θ + P e₀,   G tridiagonal: G_ii = g_{i−1} + g_i, G_{i,i+1} = G_{i+1,i} = −g_i (g_{−1} =
//     0).
// For constant P the particular (steady-state) solution is θ_ss = P G⁻¹ e₀, which for a chain is
//     θ_ss,i = P · Σ_{k≥i} R_k        (all heat flows outward through every resistance below node i),
// and the deviation d = θ − θ_ss obeys d' = −C⁻¹G d, so d(t+Δt) = exp(−C⁻¹G Δt) d(t).
// C⁻¹G is similar to the symmetric S = C^{−½} G C^{−½} (positive definite: the chain is grounded), so with
// S = Q Λ Qᵀ (Jacobi eigen-decomposition, done once)
//     exp(−C⁻¹G Δt) = C^{−½} Q exp(−Λ Δt) Qᵀ C^{½},
// i.e. the modal amplitudes z = Qᵀ C^{½} d each decay by exp(−λ_k Δt). The eigenvalues are real and
// positive, the time constants are 1/λ_k, and nothing is approximated beyond rounding.
// The heat lost to ambient over a step, ∫ g_{N−1} θ_{N−1} dt, is integrated in the same closed form
// (∫₀^Δt e^{−λs} ds = (1 − e^{−λΔt})/λ), so stored heat + heat lost = energy injected holds to rounding.
//
// Not modelled: lateral spreading between blocks of the die, heat from the rest of the SoC, temperature-
// dependent conductivity, convection changes (fan, hand contact). Power varying within a step is the
// caller's to average.
#pragma once

#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/sim/power/power_config.h"

namespace npu::sim {

struct ThermalNode {
  std::string name;
  double capacity_j_per_k = 0;
  double resistance_k_per_w = 0;  // to the next node outward; the last node's is to ambient
};

class ThermalRc {
 public:
  // Errors name the node and the value at fault.
  static Result<ThermalRc> create(std::vector<ThermalNode> chain, double ambient_c);
  // junction, package, skin from `npu.thermal.*`.
  static Result<ThermalRc> from_config(const ThermalConfig& cfg);

  // Advances by `dt_s` seconds with `power_w` injected at the junction throughout.
  void step(double dt_s, double power_w);

  size_t size() const { return nodes_.size(); }
  const ThermalNode& node(size_t i) const { return nodes_[i]; }
  double ambient_c() const { return ambient_c_; }
  double temperature_c(size_t i) const { return ambient_c_ + theta_[i]; }
  double junction_c() const { return temperature_c(0); }
  // Sets every node's temperature (size() values), e.g. to start from a warm device.
  Result<void> set_temperatures_c(const std::vector<double>& temps);

  // Node temperatures that constant `power_w` converges to: T_amb + P·Σ_{k≥i} R_k.
  std::vector<double> steady_state_c(double power_w) const;
  // 1/λ_k in seconds, largest first.
  std::vector<double> time_constants_s() const;
  // Σ C_i (T_i − T_amb): heat held above ambient.
  double stored_heat_j() const;
  // Heat that has left through the last resistance since construction.
  double heat_to_ambient_j() const { return heat_out_j_; }

 private:
  ThermalRc(std::vector<ThermalNode> nodes, double ambient_c);

  std::vector<ThermalNode> nodes_;
  double ambient_c_;
  std::vector<double> theta_;   // T − T_amb per node
  std::vector<double> sqrt_c_;  // C^{½} diagonal
  std::vector<double> lambda_;  // eigenvalues of S (1/s)
  std::vector<double> q_;       // eigenvectors of S, column k = mode k, row-major N×N
  std::vector<double> r_out_;   // Σ_{k≥i} R_k
  double heat_out_j_ = 0;
};

}  // namespace npu::sim
