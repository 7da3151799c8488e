// The FormData a shim was given for a request it answers in the page, kept beside the Request
// made from it. WebKit (WebKitGTK 2.50, measured) cannot read back the body of a Request built
// from a FormData that holds a File or Blob: text(), blob() and formData() all reject with
// "InvalidStateError: Unable to read form data blob" — so every multipart upload through the
// shims (the demo's, jQuery's, axios') failed there with 1001. The router reads the kept FormData
// instead of the body; a copy of its entries, since the caller may change the form afterwards.
const forms = new WeakMap<Request, FormData>();

export function keepForm(request: Request, body: unknown): void {
  if (typeof FormData === 'undefined' || !(body instanceof FormData)) return;
  const copy = new FormData();
  for (const [name, value] of body.entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  forms.set(request, copy);
}

/** The FormData kept for `request` by a shim, if any. */
export const keptForm = (request: Request): FormData | undefined => forms.get(request);
