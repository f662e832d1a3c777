"""Editable table of the prediction's architecture rules (prediction.md §3)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal

from mfu_desktop.core.predict.rules import RULE_COLUMNS, RULE_KINDS, Rule, check_pattern

_COLUMNS = RULE_COLUMNS


class RulesModel(QAbstractTableModel):
    """Rules as rows; every cell editable and validated (invalid input is refused with a reason)."""

    rejected = Signal(str)  # why an edit was refused

    def __init__(self, rules: list[Rule], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rules = list(rules)
        self.last_error = ""
        self.headers = (self.tr("On"), self.tr("Rule"), self.tr("Kind"), self.tr("Chips containing"),
                        self.tr("Operator types (pattern)"), self.tr("Factor"), self.tr("Bandwidth GB/s"),
                        self.tr("Only between vendor"), self.tr("Note"))

    def kind_names(self) -> dict[str, str]:
        """Each rule kind's name in the user's language (the table shows these; the CSV keeps the keys)."""
        names = {"efficiency": self.tr("efficiency"), "bandwidth": self.tr("bandwidth")}
        return {kind: names.get(kind, kind) for kind in RULE_KINDS}

    def kind_of(self, text: str) -> str | None:
        """The rule kind typed in a cell, by its key or its shown name (any case); None when it is neither."""
        typed = text.strip().casefold()
        for kind, name in self.kind_names().items():
            if typed in (kind, name.casefold()):
                return kind
        return None

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rules)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if _COLUMNS[index.column()] == "enabled":
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        rule = self.rules[index.row()]
        key = _COLUMNS[index.column()]
        if key == "enabled":
            if role == Qt.ItemDataRole.CheckStateRole:
                return Qt.CheckState.Checked if rule.enabled else Qt.CheckState.Unchecked
            return None
        if role == Qt.ItemDataRole.DisplayRole and key == "kind":
            return self.kind_names().get(rule.kind, rule.kind)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            value = getattr(rule, key)
            if key == "value":
                return "" if value is None else f"{value:g}"
            if key == "factor":
                return f"{value:g}"
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            if key == "pattern":
                return self.tr("A regular expression searched in the operator type, any case (empty: every type)")
            return rule.note
        return None

    def setData(self, index: QModelIndex, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        key = _COLUMNS[index.column()]
        rule = self.rules[index.row()]
        try:
            if key == "enabled" and role == Qt.ItemDataRole.CheckStateRole:
                state = value.value if hasattr(value, "value") else value
                new = replace(rule, enabled=state == Qt.CheckState.Checked.value or value == Qt.CheckState.Checked)
            elif role != Qt.ItemDataRole.EditRole:
                return False
            elif key == "kind":
                kind = self.kind_of(str(value))
                if kind is None:
                    raise ValueError(self.tr("kind must be {0} or {1}").format(*self.kind_names().values()))
                new = replace(rule, kind=kind)
            elif key == "factor":
                factor = float(value)
                if not factor > 0:
                    raise ValueError(self.tr("factor must be positive"))
                new = replace(rule, factor=factor)
            elif key == "value":
                text = str(value).strip()
                number = float(text) if text else None
                if number is not None and number <= 0:
                    raise ValueError(self.tr("bandwidth must be positive"))
                new = replace(rule, value=number)
            elif key == "pattern":
                problem = check_pattern(str(value).strip())
                if problem:
                    raise ValueError(problem)
                new = replace(rule, pattern=str(value).strip())
            else:
                new = replace(rule, **{key: str(value)})
        except (TypeError, ValueError) as exc:
            self.last_error = str(exc)
            self.rejected.emit(self.tr("Rule not changed: {0}").format(exc))
            return False
        self.last_error = ""
        self.rules[index.row()] = new
        self.dataChanged.emit(index, index)
        return True
