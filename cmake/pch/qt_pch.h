// The precompiled header of the Qt targets (cmake/PhaPch.cmake): the Qt Widgets and QCustomPlot
// headers our window, widgets and GUI tests include. Every file still includes what it uses;
// this header only makes parsing it cheap. No torch here, ever (docs/style.md).
#pragma once

#include <QtCore/QtCore>
#include <QtGui/QtGui>
#include <QtWidgets/QtWidgets>
#include <qcustomplot.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
