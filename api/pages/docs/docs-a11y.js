// Swagger UI leaves some controls without a name a screen reader can read: each parameter's value
// menu, the examples menu, and code samples that scroll without being reachable by the keyboard.
// This names each as Swagger UI draws it (it draws on every expand, so a MutationObserver keeps up).
function label(root) {
  for (const select of root.querySelectorAll('select:not([aria-label])')) {
    const row = select.closest('tr[data-param-name]');
    if (row) select.setAttribute('aria-label', `Value of ${row.getAttribute('data-param-name')}`);
    else if (select.classList.contains('examples-select-element')) select.setAttribute('aria-label', 'Example');
    else if (select.id) select.setAttribute('aria-label', select.id);
    else select.setAttribute('aria-label', 'Choose');
  }
  for (const code of root.querySelectorAll('.highlight-code > pre:not([tabindex]), .microlight:not([tabindex])')) {
    code.setAttribute('tabindex', '0');
    if (!code.getAttribute('aria-label')) code.setAttribute('aria-label', 'Code sample');
  }
}
new MutationObserver(() => label(document)).observe(document.documentElement, { childList: true, subtree: true });
label(document);
