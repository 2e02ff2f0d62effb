export function render(name: string): string {
  const el = document.createElement('div');
  el.innerHTML = `<h1>Hello ${name}</h1>`;
  try {
    return el.outerHTML;
  } catch (e) {}
  return '';
}
