// The public Config (include/ethosu_sim/config.h) over the parameter registry, and the public NPU's members
// that take one: named parameters are host-level knowledge (presets, vela.ini), translated here into the
// NPU's configuration.
#include <nlohmann/json.hpp>

#include "ethosu_sim/npu.h"
#include "host/config/config.h"
#include "host/config/system_config.h"
#include "models/mem/dram.h"
#include "models/npu/npu.h"
#include "sim/params.h"

namespace ethosu_sim {

Config::Config() : Config(MachineRequest{}) {}

Config::Config(const MachineRequest& request, const std::string& job_variant)
    : impl_(std::make_shared<Impl>(ethosu::host::resolve_config(request, job_variant))) {}

void Config::set(const std::string& name, const std::string& value) {
  auto own = std::make_shared<Impl>(*impl_);  // copy on write: other Configs keep their values
  ethosu::sim::Config& p = own->params;
  p.set(name, value, ethosu::sim::Source::CLI, "set");
  // A variant brings the parameters it describes, as --variant does (the system stays as it was resolved).
  if (name == "npu.variant")
    ethosu::npu::apply_variant(p, *ethosu::isa::parse_variant(value), ethosu::sim::Source::CLI, "set");
  impl_ = std::move(own);
}

std::string Config::get(const std::string& name) const { return impl_->params.param(name).value_text(); }

std::vector<Parameter> Config::parameters() const {
  std::vector<Parameter> out;
  for (const ethosu::sim::Param* p : impl_->params.params())
    out.push_back({p->name(), p->value_text(), p->unit(), p->description(), p->range_text(), p->origin(), p->read_only()});
  return out;
}

std::string Config::variant() const { return impl_->params.param("npu.variant").as_string(); }

uint32_t Config::regioncfg() const { return ethosu::host::regioncfg(impl_->params); }

std::string Config::to_json() const { return impl_->params.to_json().dump(2); }

Npu::Npu(const sc_core::sc_module_name& name, const Config& config)
    : sc_module(name), apb("apb"), axi0("axi0"), axi1("axi1"), irq("irq"), reset("reset") {
  SC_HAS_PROCESS(Npu);
  impl_ = std::make_unique<Impl>(*this);
  set_bus_mode(BusMode::TRANSACTIONS);
  SC_METHOD(drive_irq);
  sensitive << impl_->irq_changed();
  dont_initialize();
  SC_METHOD(reset_asserted);
  sensitive << reset.pos();
  dont_initialize();
  configure(config);
}

void Npu::configure(const Config& config) {
  impl_->configure(ethosu::npu::read_config(config.impl().params));
}

Dram::Dram(const sc_core::sc_module_name& name, const Config& config) : Memory(name, false) {
  timing_ = std::make_unique<Timing>();
  configure(config);
}

void Dram::configure(const Config& config) {
  ethosu::mem::DramParams p;
  ethosu::sim::read_fields(config.impl().params, "mem.dram", p);
  timing_->configure(p);
}

}  // namespace ethosu_sim
