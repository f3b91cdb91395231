/* assocmem-book: MathJax 2's `MathJax.Hub.Queue` for the Jupyter widget manager.
 *
 * The widget controls (@jupyter-widgets/controls 5, in _static/vendor/jupyter-widgets/embed-amd.js)
 * typeset a widget's description with `MathJax.Hub.Queue(["Typeset", MathJax.Hub, element])`
 * whenever `window.MathJax` exists. The book loads MathJax 3, which has no `Hub`: every rendered
 * widget then throws "Cannot read properties of undefined (reading 'Queue')". Once MathJax 3 is
 * loaded (its script is deferred, so before DOMContentLoaded; the widgets render at `load`), this
 * gives it a `Hub` whose `Queue` typesets the element with MathJax 3. Jupyter Book adds every
 * script in _static/ to every page; where there is no MathJax 3 it does nothing.
 */
(function () {
  "use strict";
  function typeset(element) {
    var mj = window.MathJax;
    var ready = mj.startup && mj.startup.promise ? mj.startup.promise : Promise.resolve();
    return ready
      .then(function () {
        return mj.typesetPromise ? mj.typesetPromise(element ? [element] : undefined) : null;
      })
      .catch(function (err) {
        console.warn("MathJax typesetting of a widget failed:", err);
      });
  }
  function install() {
    var mj = window.MathJax;
    if (!mj || !mj.version || String(mj.version).charAt(0) !== "3" || mj.Hub) {
      return;
    }
    mj.Hub = {
      Queue: function () {
        Array.prototype.forEach.call(arguments, function (call) {
          if (Array.isArray(call) && call[0] === "Typeset") {
            typeset(call[2]);
          } else if (typeof call === "function") {
            call();
          }
        });
      },
    };
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", install);
  } else {
    install();
  }
})();
