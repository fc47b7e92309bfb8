// Internal to project.cpp and project_data.cpp: the data-section readers' shared helper.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "data/tasks/task.h"

namespace pha::project::detail {

// make_task(config), its errors re-rooted from "task.<field>" to "<where>.<field>".
std::unique_ptr<data::TaskGenerator> make_task_at(const nlohmann::json& config, const std::string& where);

}  // namespace pha::project::detail
