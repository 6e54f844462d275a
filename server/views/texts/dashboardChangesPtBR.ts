import type { dashboardChangesEn } from './dashboardChangesEn.js';

/** As palavras dos formulários da página de um afiliado e do envio de um pagamento em português do Brasil. */
export const dashboardChangesPtBR: typeof dashboardChangesEn = {
  affiliateEdit: {
    edit: 'Editar afiliado',
    phone: 'Telefone',
    parent: 'Afiliado pai (id)',
    override: 'Comissão própria',
    noOverride: 'nenhuma: a regra do grupo ou da campanha',
    overrideValue: 'Valor da comissão própria',
    password: 'Nova senha do portal',
    passwordHint: 'Deixe em branco para manter a senha do afiliado. Uma nova encerra as sessões dele no portal.',
    save: 'Salvar afiliado',
    couponCode: 'Código do cupom',
    addCoupon: 'Adicionar cupom',
    removeCoupon: 'Remover',
    couponHint:
      'O id do cupom ou código promocional do Stripe, ou o id do desconto do Paddle, exatamente como o provedor mostra: um pagamento que o usou conta para este afiliado.',
  },
  payoutSend: {
    send: 'Enviar',
    sent: (id: string) => `Pagamento ${id} enviado pelo seu trilho: fica pago quando o provedor confirmar.`,
  },
};
